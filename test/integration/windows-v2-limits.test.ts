// API v2 at its limits: the 200-host streamed and compressed answer against its documented schema
// (defect 1), a cold-cache burst (defect 2), one asset_id sent concurrently (defect 3), malformed multipart
// (defect 5) and identifying data that must not be stored (defect 6). Over HTTP (inject) and real PostgreSQL.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { testApp, seedOrg, type TestApp, type SeededKey } from '../helpers/app.ts';
import { importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';
import { V2CorrelateResponse, V2ResultsResponse } from '../../src/http/routes/v2/schemas.ts';
import { Kysely, PostgresDialect } from '../../src/store/kysely.ts';
import { SIGNAL_TTL_MS, WindowsData } from '../../src/windows-data.ts';
import type { DB as Database } from '../../src/store/db-schema.ts';

let t: TestApp;

/** The worst-case host: Windows Server 2019 at build 10.0.17763.4974 (years behind: most CVEs open). */
const OLD_2019 = {
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.4974',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: [] as string[],
  kb_source: '',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
};
const host = (i: number, extra: Record<string, unknown> = {}) => ({
  ...OLD_2019,
  asset_id: `a9f3c2d1e0${String(i).padStart(4, '0')}`,
  ...extra,
});

const ajv = new Ajv.default({ strict: false, allErrors: false });
addFormats.default(ajv);
const validCorrelate = ajv.compile(V2CorrelateResponse);
const validResults = ajv.compile(V2ResultsResponse);

before(async () => {
  t = await testApp({ now: '2026-07-10T12:00:00Z' });
  await importMsrcDocuments(t.store.db, [FIXTURE_DIR]);
});
after(async () => {
  await t.close();
});

async function post(org: SeededKey, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate',
    headers: { ...org.auth, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function storedHosts(orgId: number) {
  return t.store.db
    .selectFrom('windows_host_results')
    .select(['asset_id', 'host', 'request_id'])
    .where('org_id', '=', orgId)
    .execute();
}

function decode(r: { headers: Record<string, unknown>; rawPayload: Buffer }): unknown {
  const enc = r.headers['content-encoding'];
  const bytes =
    enc === 'br'
      ? zlib.brotliDecompressSync(r.rawPayload)
      : enc === 'gzip'
        ? zlib.gunzipSync(r.rawPayload)
        : r.rawPayload;
  return JSON.parse(bytes.toString('utf8'));
}

/** The body without the fields that differ from call to call (request id, timings). */
function stable(body: any) {
  const {
    api: _a,
    meta: { took_ms: _t, ...meta },
    ...rest
  } = body;
  void _a;
  void _t;
  return { ...rest, meta };
}

describe('defect 1: 200 hosts with cleared CVEs, streamed and compressed', () => {
  test('200 hosts of the repro, include_cleared, no paging: 200, br-compressed, valid against the documented schema', async () => {
    const org = await seedOrg(t.store, { name: 'Stream org' });
    const hosts = Array.from({ length: 200 }, (_, i) => host(i));
    const r = await post(
      org,
      { windows_hosts: hosts, options: { include_cleared: true } },
      { 'accept-encoding': 'gzip, br' },
    );
    assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    assert.equal(r.headers['content-encoding'], 'br');
    assert.match(String(r.headers.vary), /accept-encoding/i);
    assert.match(String(r.headers['content-type']), /^application\/json; charset=utf-8/);
    const body = decode(r) as any;
    assert.ok(validCorrelate(body), JSON.stringify(validCorrelate.errors?.slice(0, 3)));
    assert.equal(body.data.assets.length, 200);
    assert.deepEqual(
      body.data.assets.map((a: any) => a.asset_id),
      hosts.map((h) => h.asset_id),
    );
    const first = body.data.assets[0];
    assert.equal(first.microsoft_product, 'Windows Server 2019');
    assert.ok(first.counts.confirmed_open > 100, 'a 2023 build has most CVEs open');
    assert.equal(
      first.cves.length,
      first.counts.confirmed_open + first.counts.cleared + first.counts.needs_review,
      'every CVE, cleared included',
    );
    for (const a of body.data.assets)
      assert.deepEqual(a.cves, first.cves, 'hosts with the same facts get the same list');
    assert.equal(body.meta.filters.include_cleared, true);
    assert.ok(
      r.rawPayload.length * 20 < Buffer.byteLength(JSON.stringify(body)),
      `br shrinks repeated host lists (${r.rawPayload.length} bytes sent)`,
    );
    assert.equal((await storedHosts(org.orgId)).length, 200);
  });

  test('gzip when only gzip is accepted; identity when nothing is; the same JSON either way', async () => {
    const org = await seedOrg(t.store, { name: 'Gzip org' });
    const body = {
      windows_hosts: Array.from({ length: 12 }, (_, i) =>
        host(i, i % 3 ? {} : { os_build: '10.0.17763.8755', installed_kbs: ['KB5087538'], kb_source: 'Get-HotFix' }),
      ),
      options: { include_cleared: true },
    };
    const gz = await post(org, body, { 'accept-encoding': 'gzip;q=1.0, br;q=0' });
    const plain = await post(org, body);
    const none = await post(org, body, { 'accept-encoding': 'identity' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(none.headers['content-encoding'], undefined);
    const a = decode(gz);
    const b = JSON.parse(plain.body);
    assert.ok(validCorrelate(a) && validCorrelate(b), JSON.stringify(validCorrelate.errors?.slice(0, 3)));
    assert.deepEqual(stable(a), stable(b));
    assert.deepEqual(stable(JSON.parse(none.body)), stable(b));
  });

  test('GET results streams a page of stored hosts in the documented shape', async () => {
    const org = await seedOrg(t.store, { name: 'Results org' });
    const hosts = Array.from({ length: 5 }, (_, i) => host(i));
    assert.equal((await post(org, { windows_hosts: hosts })).statusCode, 200);
    const r = await t.app.inject({
      method: 'GET',
      url: '/api/v2/assets/results?asset_id=a9f3c2d1e00003&include_cleared=true&cve_page=1&cve_page_size=5',
      headers: { ...org.auth, 'accept-encoding': 'gzip' },
    });
    assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    assert.equal(r.headers['content-encoding'], 'gzip');
    const body = decode(r) as any;
    assert.ok(validResults(body), JSON.stringify(validResults.errors?.slice(0, 3)));
    assert.equal(body.data.assets.length, 1);
    assert.equal(body.data.assets[0].asset_id, 'a9f3c2d1e00003');
    assert.equal(body.data.assets[0].cves.length, 5);
    assert.equal(body.data.assets[0].cves_page.page_size, 5);
    assert.equal(body.pagination.total, 1);
  });
});

describe('defect 2: a burst on a cold (expired) cache', () => {
  test('one signal load for the whole burst, the limiter exact, zero 5xx', async () => {
    const app = await testApp({
      now: '2026-07-10T12:00:00Z',
      rateProfiles: {
        correlation: { requests: { points: 30, durationSec: 60 }, units: { points: 5000, durationSec: 60 } },
      },
    });
    try {
      await importMsrcDocuments(app.store.db, [FIXTURE_DIR]);
      const org = await seedOrg(app.store, { name: 'Burst org' });
      const call = (i: number) =>
        app.app.inject({
          method: 'POST',
          url: '/api/v2/assets/correlate',
          headers: { ...org.auth, 'content-type': 'application/json' },
          payload: { windows_hosts: [host(i)] },
        });
      assert.equal((await call(0)).statusCode, 200);
      const loads = app.app.services.windows.data.loads;
      assert.deepEqual({ ...loads }, { builds: 1, signalLoads: 1 });
      // Five idle minutes and more: the cached signals have expired.
      app.clock.advance(SIGNAL_TTL_MS + 60_000);
      const res = await Promise.all(Array.from({ length: 60 }, (_, i) => call(i + 1)));
      const byStatus = new Map<number, number>();
      for (const r of res) byStatus.set(r.statusCode, (byStatus.get(r.statusCode) ?? 0) + 1);
      assert.deepEqual(
        [...byStatus].sort(),
        [
          [200, 29],
          [429, 31],
        ],
        'exactly the limit passes (one request was spent warming)',
      );
      for (const r of res.filter((x) => x.statusCode === 429)) assert.equal(r.json().error.code, 'RATE_LIMITED');
      assert.deepEqual(
        { ...loads },
        { builds: 1, signalLoads: 2 },
        'the expired signals were loaded once for the whole burst',
      );
    } finally {
      await app.close();
    }
  });
});

describe('defect 2: the Windows data caches alone', () => {
  test('expired signals: 40 concurrent readers run one load; near expiry, one background refresh', async () => {
    let signalQueries = 0;
    let versionQueries = 0;
    // The app's pool, with a query log that counts the corpus-signal and version queries.
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: t.store.pool }),
      log: (e) => {
        if (e.level !== 'query') return;
        if (e.query.sql.includes('"kev_flagged"')) signalQueries++;
        if (e.query.sql.includes('max(imported_at)')) versionQueries++;
      },
    });
    let now = Date.parse('2026-07-10T12:00:00Z');
    const data = new WindowsData(db, () => now);
    const info = await data.index();
    await data.signals(info);
    assert.equal(signalQueries, 1);
    now += SIGNAL_TTL_MS + 1;
    const lookups = await Promise.all(Array.from({ length: 40 }, async () => data.signals(await data.index())));
    assert.equal(signalQueries, 2, 'one load for 40 readers of the expired signals');
    assert.ok(
      lookups.every((l) => l === lookups[0]),
      'every reader got the same generation',
    );
    assert.ok(versionQueries <= 3, `concurrent version checks share one query (${versionQueries})`);
    // 30 s before expiry: served from cache, and refreshed once in the background.
    now += SIGNAL_TTL_MS - 30_000;
    const before = await Promise.all(Array.from({ length: 10 }, () => data.signals(info)));
    assert.ok(
      before.every((l) => l === lookups[0]),
      'the current signals are served while the refresh runs',
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(signalQueries, 3, 'one refresh ahead of expiry');
    assert.notEqual(await data.signals(info), lookups[0], 'the refreshed signals are served next');
  });
});

describe('defect 3: one asset_id sent concurrently', () => {
  test('60 parallel calls: all 200, one row, its host and software from one call entirely', async () => {
    const org = await seedOrg(t.store, { name: 'Race org' });
    const levels = [
      ['10.0.17763.8755', 'KB5087538'],
      ['10.0.17763.8880', 'KB5094123'],
      ['10.0.17763.8644', 'KB5082123'],
    ];
    const bodies = Array.from({ length: 60 }, (_, i) => {
      const [build, kb] = levels[i % levels.length];
      return {
        windows_hosts: [
          host(0, {
            asset_id: 'race00000000ab',
            os_build: build,
            installed_kbs: [kb],
            kb_source: `Get-HotFix run ${i}`,
          }),
        ],
        installed_software: [
          { asset_id: 'race00000000ab', name: `Tool ${i}`, publisher: 'Vendor', version: String(i) },
          { asset_id: 'race00000000ab', name: `Agent ${i}`, publisher: '', version: '' },
        ],
      };
    });
    const res = await Promise.all(bodies.map((b) => post(org, b)));
    assert.deepEqual(
      res.map((r) => r.statusCode),
      res.map(() => 200),
      res.find((r) => r.statusCode !== 200)?.body.slice(0, 300),
    );
    const rows = await storedHosts(org.orgId);
    assert.equal(rows.length, 1);
    const winner = res.findIndex((r) => r.json().api.request_id === rows[0].request_id);
    assert.ok(winner >= 0, 'the stored row names one of the calls');
    const sent = bodies[winner].windows_hosts[0];
    const stored = rows[0].host as Record<string, unknown>;
    assert.equal(stored.os_build, sent.os_build);
    assert.deepEqual(stored.installed_kbs, sent.installed_kbs);
    assert.equal(stored.kb_source, sent.kb_source);
    const sw = await t.store.db
      .selectFrom('windows_installed_software')
      .select(['name', 'version'])
      .where('org_id', '=', org.orgId)
      .orderBy('name')
      .execute();
    assert.deepEqual(sw, [
      { name: `Agent ${winner}`, version: null },
      { name: `Tool ${winner}`, version: String(winner) },
    ]);
  });
});

describe('defect 5: malformed multipart', () => {
  const CSV =
    'asset_id,os_product,edition_id,display_version,os_build,architecture,installation_type,installed_kbs,kb_source,esu_enrolled,collected_at\r\n' +
    '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41,Windows Server 2019 Datacenter,ServerDatacenter,1809,10.0.17763.8755,x64,Server,KB5087538,Get-HotFix,,2026-06-15T08:00:00Z\r\n';
  const part = (b: string, name: string, value: string | Buffer, file = true) =>
    Buffer.concat([
      Buffer.from(
        `--${b}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${name}.csv"\r\nContent-Type: text/csv` : ''}\r\n\r\n`,
      ),
      Buffer.isBuffer(value) ? value : Buffer.from(value),
      Buffer.from('\r\n'),
    ]);
  const B = 'vi-boundary-1234';
  async function send(org: SeededKey, payload: Buffer, contentType = `multipart/form-data; boundary=${B}`) {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate-csv',
      headers: { ...org.auth, 'content-type': contentType },
      payload,
    });
    return { status: r.statusCode, body: r.json() };
  }
  function assert422(r: { status: number; body: any }, field: string, pattern: RegExp) {
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    assert.equal(r.body.error.detail[0].field, field);
    assert.match(r.body.error.detail[0].message, pattern);
  }

  test('missing boundary, truncated body, invalid UTF-8, two hosts parts, an unexpected file part: 422 naming the problem, nothing stored', async () => {
    const org = await seedOrg(t.store, { name: 'Multipart org' });
    const whole = Buffer.concat([part(B, 'hosts', CSV), Buffer.from(`--${B}--\r\n`)]);
    assert422(await send(org, whole, 'multipart/form-data'), 'body', /boundary/);
    assert422(await send(org, whole.subarray(0, whole.length - 60)), 'body', /truncated|could not be read/);
    const latin1 = Buffer.concat([Buffer.from(CSV.slice(0, -2)), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('\r\n')]);
    assert422(
      await send(org, Buffer.concat([part(B, 'hosts', latin1), Buffer.from(`--${B}--\r\n`)])),
      'body.hosts',
      /not valid UTF-8/,
    );
    assert422(
      await send(org, Buffer.concat([part(B, 'hosts', CSV), part(B, 'hosts', CSV), Buffer.from(`--${B}--\r\n`)])),
      'body.hosts',
      /one hosts part/,
    );
    assert422(
      await send(
        org,
        Buffer.concat([
          part(B, 'hosts', CSV),
          part(B, 'software', 'asset_id,name,publisher,version\r\n'),
          part(B, 'notes', 'x'),
          Buffer.from(`--${B}--\r\n`),
        ]),
      ),
      'body.notes',
      /only the hosts and software parts may be files/,
    );
    assert.equal((await storedHosts(org.orgId)).length, 0);
    // The same upload, well formed, is accepted.
    const ok = await send(org, whole);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await storedHosts(org.orgId)).length, 1);
  });
});

describe('defect 6: identifying data is refused and nothing of that host is stored', () => {
  test('IPs, host names, UNC paths and e-mail addresses in any field: forbidden_value, not echoed, not stored', async () => {
    const org = await seedOrg(t.store, { name: 'Identifying org' });
    const bad = [
      host(1, { asset_id: '10.1.2.3:3389' }),
      host(2, { asset_id: '１０．１．２．３' }),
      host(3, { asset_id: 'DESKTOP-7G3K2QF' }),
      host(4, { kb_source: 'Get-HotFix via \\\\wsus01\\reports' }),
      host(5, { display_version: 'plant4.example.com' }),
      host(6, { os_product: 'Windows Server 2019 Datacenter ops@example.com' }),
      host(7, { edition_id: '[fe80::1]' }),
    ];
    const r = await post(org, { windows_hosts: [host(0), ...bad] });
    assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    const body = r.json();
    assert.deepEqual(
      body.data.rejected.map((x: any) => [x.index, x.errors.map((e: any) => `${e.code}:${e.field}`)]),
      [
        [1, ['forbidden_value:asset_id']],
        [2, ['forbidden_value:asset_id']],
        [3, ['forbidden_value:asset_id']],
        [4, ['forbidden_value:kb_source']],
        [5, ['forbidden_value:display_version']],
        [6, ['forbidden_value:os_product']],
        [7, ['forbidden_value:edition_id']],
      ],
    );
    for (const v of [
      '10.1.2.3',
      '１０．１．２．３',
      'DESKTOP-7G3K2QF',
      'wsus01',
      'plant4.example.com',
      'ops@example.com',
      'fe80::1',
    ])
      assert.ok(!r.body.includes(v), `${v} echoed`);
    const rows = await storedHosts(org.orgId);
    assert.deepEqual(
      rows.map((x) => x.asset_id),
      [host(0).asset_id],
    );
  });

  test('a lone surrogate or a NUL in a v2 JSON body never reaches the database (422, not 500)', async () => {
    const org = await seedOrg(t.store, { name: 'Surrogate org' });
    const h = JSON.stringify(host(0));
    for (const [raw, field] of [
      [h.replace('"kb_source":""', '"kb_source":"Get-HotFix\\ud800"'), 'kb_source'],
      [h.replace('"asset_id":"', '"asset_id":"\\udc00'), 'asset_id'],
      [h.replace('"display_version":"1809"', '"display_version":"18\\u000009"'), 'display_version'],
    ]) {
      const r = await post(org, `{"windows_hosts":[${raw}]}`);
      // The host is refused by its own validation (a bad string refuses that host only), here the only one: 422
      // with it in data.rejected, the field named, the value never echoed.
      assert.equal(r.statusCode, 422, r.body);
      assert.equal(r.json().error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        r.json().data.rejected[0].errors.map((e: { code: string; field: string }) => [e.code, e.field]),
        [['forbidden_value', field]],
      );
      assert.ok(!r.body.includes('Get-HotFix'), 'the refused value is not echoed');
    }
    const stored = await t.store.pool.query('SELECT count(*)::int AS n FROM windows_host_results WHERE org_id = $1', [
      org.orgId,
    ]);
    assert.equal(stored.rows[0].n, 0, 'nothing of these hosts is stored');
    // A software record with such text is refused alone (its host is evaluated), and never reaches the database.
    const sw = await post(org, {
      windows_hosts: [host(0)],
      installed_software: [{ asset_id: host(0).asset_id, name: 'Tool\ud800', publisher: '', version: '' }],
    });
    assert.equal(sw.statusCode, 200, sw.body.slice(0, 300));
    assert.deepEqual(
      [
        sw.json().data.software_stored,
        sw.json().data.software_rejected[0].errors.map((e: { code: string; field: string }) => [e.code, e.field]),
      ],
      [0, [['forbidden_value', 'name']]],
    );
    const software = await t.store.pool.query(
      'SELECT count(*)::int AS n FROM windows_installed_software WHERE org_id = $1',
      [org.orgId],
    );
    assert.equal(software.rows[0].n, 0);
  });
});
