// Hostile bytes: U+0000 and lone UTF-16 surrogates are refused at the edge on every route
// with 422 VALIDATION_ERROR naming the field (spec §7: detail is [{field, message, type}]), nothing is stored, and
// a database error never brings the submitted data into the logs.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { sql } from '../../src/store/kysely.ts';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { ok } from '../../src/http/envelope.ts';
import { importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';

const HOST = {
  asset_id: 'a1b2c3d4e5f60718',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5087538'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
};
const CSV_FIELDS = Object.keys(HOST) as (keyof typeof HOST)[];

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _e, cb) {
    logLines.push(...chunk.toString().split('\n').filter(Boolean));
    cb();
  },
});

/** Test-only routes that put a client's value into a failing query, as a store function would. */
function dbFailureRoutes(app: FastifyInstance) {
  const route = {
    schema: { hide: true, body: Type.Object({ value: Type.String() }), querystring: Type.Object({}) },
    config: { auth: { mode: 'none' as const } },
  };
  app.post('/api/v1/__test/db-int', route, async (req) => {
    await sql`SELECT ${(req.body as { value: string }).value}::int`.execute(app.deps.store.db);
    return ok(req, {});
  });
  app.post('/api/v1/__test/db-jsonb', route, async (req) => {
    await sql`SELECT ${(req.body as { value: string }).value}::jsonb ->> 'asset_id'`.execute(app.deps.store.db);
    return ok(req, {});
  });
}

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let envId: number;

before(async () => {
  t = await testApp({ now: '2026-07-10T12:00:00Z', logger: createLogger('info', sink), testRoutes: dbFailureRoutes });
  org = await seedOrg(t.store, { name: 'Hostile Org' });
  await importMsrcDocuments(t.store.db, [FIXTURE_DIR]);
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v1/environments',
    headers: org.auth,
    payload: { name: 'Line 1' },
  });
  assert.equal(r.statusCode, 201, r.body);
  envId = r.json().data.id;
});
after(async () => {
  await t.close();
});

function multipart(parts: Record<string, string>) {
  const boundary = '----vihostile';
  const body =
    Object.entries(parts)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.csv"\r\nContent-Type: text/csv\r\n\r\n${value}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`;
  return { payload: Buffer.from(body), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function csvOf(host: Record<string, unknown>): string {
  const cell = (f: string) => (f === 'installed_kbs' ? (host[f] as string[]).join(';') : String(host[f]));
  return `${CSV_FIELDS.join(',')}\r\n${CSV_FIELDS.map(cell).join(',')}\r\n`;
}

async function rowCount(
  table: 'environments' | 'windows_host_results' | 'windows_installed_software',
): Promise<number> {
  const r = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(t.store.db);
  return Number(r.rows[0].n);
}

/** 422 VALIDATION_ERROR whose detail names exactly `field`, with the NUL or surrogate type, and no echo. */
function assertRefused(r: { statusCode: number; body: string }, field: string, kind: 'nul' | 'surrogate') {
  assert.equal(r.statusCode, 422, r.body);
  const b = JSON.parse(r.body);
  assert.equal(b.error.code, 'VALIDATION_ERROR');
  assert.equal(b.error.action, 'fix_input');
  assert.equal(b.error.retryable, false);
  assert.ok(Array.isArray(b.error.detail), 'detail is the spec §7 array of {field, message, type}');
  assert.deepEqual(
    b.error.detail.map((d: { field: string; type: string }) => [d.field, d.type]),
    [[field, `value_error.str.${kind}`]],
  );
  assert.match(b.error.detail[0].message, kind === 'nul' ? /NUL character \(U\+0000\)/ : /lone UTF-16 surrogate/);
  assert.ok(!r.body.includes('\\u0000') && !/\\ud8/i.test(r.body), 'the value is not echoed');
}

describe('NUL and lone surrogates: 422 naming the field on each route that would otherwise answer 500', () => {
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: org.auth });

  test('GET /api/v1/cves: q and vendor', async () => {
    assertRefused(await get('/api/v1/cves?q=%00'), 'query.q', 'nul');
    assertRefused(await get('/api/v1/cves?vendor=siemens%00'), 'query.vendor', 'nul');
  });

  test('GET /api/v1/cves/vendor/:slug (path parameter)', async () => {
    assertRefused(await get('/api/v1/cves/vendor/siemens%00'), 'params.slug', 'nul');
  });

  test('GET /api/v1/catalog/vendors?q', async () => {
    assertRefused(await get('/api/v1/catalog/vendors?q=ab%00'), 'query.q', 'nul');
  });

  test('GET /api/v2/assets/results?asset_id', async () => {
    assertRefused(await get('/api/v2/assets/results?asset_id=host%00'), 'query.asset_id', 'nul');
  });

  test('POST /api/v1/environments: name, description, and a field name; nothing stored', async () => {
    const before = await rowCount('environments');
    const post = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/environments',
        headers: { ...org.auth, 'content-type': 'application/json' },
        payload,
      });
    assertRefused(await post('{"name":"a\\u0000"}'), 'body.name', 'nul');
    assertRefused(await post('{"name":"Line 2","description":"x\\udc00y"}'), 'body.description', 'surrogate');
    assertRefused(await post('{"name":"Line 3","a\\u0000b":1}'), 'body', 'nul');
    // A bidirectional override or isolate in the name is refused by the name's own rule (not the edge's).
    for (const name of ['Line \u202E2 enil', '\u2066Line 4\u2069']) {
      const r = await post(JSON.stringify({ name }));
      assert.deepEqual(
        [r.statusCode, r.json().error.detail],
        [
          422,
          [
            {
              field: 'body.name',
              type: 'value_error.str.regex',
              message:
                'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
            },
          ],
        ],
      );
    }
    assert.equal(await rowCount('environments'), before);
    // A surrogate pair is a real character (U+1F3ED) and stays accepted.
    const factory = await post('{"name":"Line \\ud83c\\udfed"}');
    assert.equal(factory.statusCode, 201, factory.body);
    assert.equal(factory.json().data.name, 'Line \u{1F3ED}');
  });

  test('POST /api/v2/assets/correlate: a lone surrogate or NUL in a host refuses that host only; the others are evaluated and stored', async () => {
    const post = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v2/assets/correlate',
        headers: { ...org.auth, 'content-type': 'application/json' },
        payload,
      });
    const good = { ...HOST, asset_id: 'good-host-000001' };
    const text = 'control characters and unpaired surrogates are not allowed (UTF-8 text only)';
    const cases: [string, string, string | null, { code: string; field: string; message: string }[]][] = [
      // [the bad host's JSON, the field refused, the asset_id the answer names (never a refused one), further errors]
      ...(['asset_id', 'os_product', 'edition_id', 'display_version', 'kb_source'] as const).map(
        (f): [string, string, string | null, { code: string; field: string; message: string }[]] => [
          JSON.stringify({
            ...HOST,
            asset_id: 'second-host-0001',
            [f]: `${f === 'asset_id' ? 'second-host-0001' : HOST[f]}@BAD@`,
          }).replace('@BAD@', f === 'kb_source' ? '\\u0000' : '\\ud800'),
          f,
          f === 'asset_id' ? null : 'second-host-0001',
          // A refused kb_source counts as absent, and the host's KB list then lacks its source.
          f === 'kb_source'
            ? [
                {
                  code: 'missing_kb_source',
                  field: 'kb_source',
                  message: 'installed_kbs needs kb_source (how the list was collected)',
                },
              ]
            : [],
        ],
      ),
      [
        JSON.stringify({ ...HOST, asset_id: 'second-host-0001', installed_kbs: ['KB5087538', 'KB1\u0000'] }),
        'installed_kbs',
        'second-host-0001',
        [{ code: 'invalid_kb', field: 'installed_kbs', message: 'each KB must be KB followed by digits' }],
      ],
    ];
    for (const [bad, field, assetId, more] of cases) {
      const r = await post(`{"environment_id":${envId},"windows_hosts":[${JSON.stringify(good)},${bad}]}`);
      assert.equal(r.statusCode, 200, `${field}: ${r.body.slice(0, 300)}`);
      const b = JSON.parse(r.body);
      assert.deepEqual(
        b.data.assets.map((a: { asset_id: string }) => a.asset_id),
        [good.asset_id],
      );
      assert.deepEqual(
        b.data.rejected,
        [
          {
            asset_id: assetId,
            index: 1,
            retryable: false,
            retry_after_seconds: null,
            action: 'fix_input',
            errors: [{ code: 'forbidden_value', field, message: text }, ...more],
          },
        ],
        field,
      );
      assert.ok(!r.body.includes('\\u0000') && !/\\ud8/i.test(r.body), 'the value is not echoed');
      const stored = await sql<{
        asset_id: string;
      }>`SELECT asset_id FROM windows_host_results WHERE org_id = ${org.orgId} ORDER BY asset_id`.execute(t.store.db);
      assert.deepEqual(
        stored.rows.map((x) => x.asset_id),
        [good.asset_id],
        'only the good host is stored',
      );
    }
    // A field name with NUL: that host refused (named with U+FFFD in its place), the other evaluated.
    const key = await post(
      `{"windows_hosts":[${JSON.stringify(good)},${JSON.stringify({ ...HOST, asset_id: 'second-host-0001' }).slice(0, -1)},"no\\u0000te":"x"}]}`,
    );
    assert.equal(key.statusCode, 200, key.body.slice(0, 300));
    assert.deepEqual(JSON.parse(key.body).data.rejected[0].errors, [
      {
        code: 'unknown_field',
        field: 'no\uFFFDte',
        message: 'field is not part of the Windows host record (spec §2.6)',
      },
    ]);
    // The only host refused: the usual 422 with it in data.rejected; nothing stored.
    const alone = await post(`{"windows_hosts":[${cases[0][0]}]}`);
    assert.equal(alone.statusCode, 422);
    assert.deepEqual(
      JSON.parse(alone.body).data.rejected.map((x: { index: number; errors: { code: string; field: string }[] }) => [
        x.index,
        x.errors[0].code,
        x.errors[0].field,
      ]),
      [[0, 'forbidden_value', 'asset_id']],
    );
    // A software record: that record only; the host and the other software are stored.
    const sw = await post(
      JSON.stringify({
        windows_hosts: [HOST],
        installed_software: [
          { asset_id: HOST.asset_id, name: 'WinCC\u0000', publisher: 'Siemens', version: '8.0' },
          { asset_id: HOST.asset_id, name: 'TIA Portal', publisher: 'Siemens', version: '19', 'no\ud800te': 'x' },
          { asset_id: HOST.asset_id, name: 'STEP 7', publisher: 'Siemens', version: '5.7' },
        ],
      }),
    );
    assert.equal(sw.statusCode, 200, sw.body.slice(0, 300));
    const swb = JSON.parse(sw.body);
    assert.deepEqual(
      swb.data.assets.map((a: { asset_id: string }) => a.asset_id),
      [HOST.asset_id],
    );
    assert.equal(swb.data.software_stored, 1);
    assert.deepEqual(
      swb.data.software_rejected.map(
        (x: { index: number; errors: { code: string; field: string; message: string }[] }) => [x.index, x.errors],
      ),
      [
        [0, [{ code: 'forbidden_value', field: 'name', message: text }]],
        [
          1,
          [
            {
              code: 'unknown_field',
              field: 'no\uFFFDte',
              message: 'field is not part of the software record (asset_id, name, publisher, version)',
            },
          ],
        ],
      ],
    );
    assert.ok(!sw.body.includes('\\u0000') && !/\\ud8/i.test(sw.body), 'the value is not echoed');
    const names = await sql<{
      name: string;
    }>`SELECT name FROM windows_installed_software WHERE org_id = ${org.orgId} ORDER BY name`.execute(t.store.db);
    assert.deepEqual(
      names.rows.map((x) => x.name),
      ['STEP 7'],
    );
    // Outside the records the request is refused whole, as on every route: options, a records field that is no array.
    const softwareBefore = await rowCount('windows_installed_software');
    assertRefused(
      await post(JSON.stringify({ windows_hosts: [HOST], options: { sort: 'priority\u0000' } })),
      'body.options.sort',
      'nul',
    );
    assertRefused(await post(JSON.stringify({ windows_hosts: 'x\u0000' })), 'body.windows_hosts', 'nul');
    assertRefused(
      await post(JSON.stringify({ windows_hosts: [HOST], installed_software: 'x\u0000' })),
      'body.installed_software',
      'nul',
    );
    assert.equal(await rowCount('windows_installed_software'), softwareBefore);
  });

  test('POST /api/v1/assets/correlate-cves and /check: NUL or a lone surrogate in one asset refuses that asset only', async () => {
    const good = { asset_id: 'plc-good-01', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: '2.9.2' };
    const text = 'control characters and unpaired surrogates are not allowed (UTF-8 text only)';
    for (const url of ['/api/v1/assets/correlate-cves', '/api/v1/assets/correlate-cves/check']) {
      const payload =
        `{"assets":[${JSON.stringify(good)},{"asset_id":"plc-bad-01","vendor":"Siemens","product":"SIMATIC\\u0000S7","version":"1"},` +
        `{"asset_id":"plc\\ud800","vendor":"Siemens","product":"S7","version":"1"},{"asset_id":"plc-bad-03","vendor":"Siemens","product":"S7","ver\\u0000sion":"1"}]}`;
      const r = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...org.auth, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(r.statusCode, 200, `${url}: ${r.body.slice(0, 300)}`);
      const b = JSON.parse(r.body);
      assert.deepEqual(
        b.data.assets.map((a: { asset_id: string }) => a.asset_id),
        [good.asset_id],
        url,
      );
      assert.deepEqual(
        b.data.rejected.map((x: { asset_id: string | null; index: number; errors: unknown[] }) => [
          x.asset_id,
          x.index,
          x.errors,
        ]),
        [
          ['plc-bad-01', 1, [{ code: 'forbidden_value', field: 'product', message: text }]],
          [null, 2, [{ code: 'forbidden_value', field: 'asset_id', message: text }]],
          [
            'plc-bad-03',
            3,
            [
              {
                code: 'unknown_field',
                field: 'ver\uFFFDsion',
                message: 'field is not part of the asset record (asset_id, vendor, product, version, cpe)',
              },
            ],
          ],
        ],
        url,
      );
      assert.ok(!r.body.includes('\\u0000') && !/\\ud8/i.test(r.body), 'the value is not echoed');
    }
    // Outside the assets, the request is refused whole.
    const opt = await t.app.inject({
      method: 'POST',
      url: '/api/v1/assets/correlate-cves',
      headers: { ...org.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ assets: [good], options: { sort: 'x\u0000' } }),
    });
    assertRefused(opt, 'body.options.sort', 'nul');
  });

  test('POST /api/v1/assets/check-windows: a NUL in one host refuses that host only', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/assets/check-windows',
      headers: { ...org.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ windows_hosts: [HOST, { ...HOST, asset_id: 'secret\u0000host' }] }),
    });
    assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    const b = JSON.parse(r.body);
    assert.deepEqual(
      b.data.hosts.map((h: { asset_id: string }) => h.asset_id),
      [HOST.asset_id],
    );
    assert.deepEqual(b.data.rejected, [
      {
        asset_id: null,
        index: 1,
        retryable: false,
        retry_after_seconds: null,
        action: 'fix_input',
        errors: [
          {
            code: 'forbidden_value',
            field: 'asset_id',
            message: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
          },
        ],
      },
    ]);
    assert.ok(!r.body.includes('secret'), 'the value is not echoed');
  });

  test('POST /api/v2/assets/correlate-csv: NUL in a host or software row refuses that row only; in a header, the request', async () => {
    const other = { ...HOST, asset_id: 'csv-good-host-01' };
    const m = multipart({
      hosts:
        csvOf(other) +
        csvOf({ ...HOST, asset_id: 'csv-bad-host-001', kb_source: 'Get-Hot\u0000Fix' }).split('\r\n')[1] +
        '\r\n',
    });
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate-csv',
      headers: { ...org.auth, ...m.headers },
      payload: m.payload,
    });
    assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    const b = JSON.parse(r.body);
    assert.deepEqual(
      b.data.assets.map((a: { asset_id: string }) => a.asset_id),
      [other.asset_id],
    );
    assert.deepEqual(
      b.data.rejected.map((x: { asset_id: string; index: number; errors: { code: string; field: string }[] }) => [
        x.asset_id,
        x.index,
        x.errors.map((e) => `${e.code}:${e.field}`),
      ]),
      [['csv-bad-host-001', 1, ['forbidden_value:kb_source', 'missing_kb_source:kb_source']]],
    );
    const stored = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM windows_host_results WHERE org_id = ${org.orgId} AND asset_id = 'csv-bad-host-001'`.execute(
      t.store.db,
    );
    assert.equal(stored.rows[0].n, 0);
    const hostsBefore = await rowCount('windows_host_results');
    const h = multipart({ hosts: csvOf(HOST).replace('kb_source', 'kb_\u0000source') });
    assertRefused(
      await t.app.inject({
        method: 'POST',
        url: '/api/v2/assets/correlate-csv',
        headers: { ...org.auth, ...h.headers },
        payload: h.payload,
      }),
      'body.hosts',
      'nul',
    );
    const sh = multipart({
      hosts: csvOf(HOST),
      software: `asset_id,name,pub\u0000lisher,version\r\n${HOST.asset_id},WinCC,Siemens,8.0\r\n`,
    });
    // (a software column name outside the four is refused before its text is looked at)
    const shr = await t.app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate-csv',
      headers: { ...org.auth, ...sh.headers },
      payload: sh.payload,
    });
    assert.deepEqual(
      [shr.statusCode, shr.json().error.detail.map((d: { field: string; type: string }) => [d.field, d.type])],
      [422, [['body.software', 'value_error.csv']]],
    );
    assert.equal(await rowCount('windows_host_results'), hostsBefore);
    const s = multipart({
      hosts: csvOf(HOST),
      software: `asset_id,name,publisher,version\r\n${HOST.asset_id},WinCC,Sie\u0000mens,8.0\r\n${HOST.asset_id},WinCC Runtime,Siemens,8.0\r\n`,
    });
    const sr = await t.app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate-csv',
      headers: { ...org.auth, ...s.headers },
      payload: s.payload,
    });
    assert.equal(sr.statusCode, 200, sr.body.slice(0, 300));
    assert.deepEqual(
      [
        sr.json().data.software_stored,
        sr
          .json()
          .data.software_rejected.map((x: { index: number; errors: { code: string; field: string }[] }) => [
            x.index,
            x.errors.map((e) => `${e.code}:${e.field}`),
          ]),
      ],
      [1, [[0, ['forbidden_value:publisher']]]],
    );
  });

  test('the same host without the bad byte is accepted (the check refuses only what it must)', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate',
      headers: org.auth,
      payload: { environment_id: envId, windows_hosts: [HOST] },
    });
    assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    assert.equal(r.json().data.assets[0].asset_id, HOST.asset_id);
  });
});

describe('query strings whose percent-encoding is not UTF-8: 422 on the field, never read as their raw text', () => {
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: org.auth });
  /** 422 naming exactly `fields`, type value_error.str.encoding, the raw text not echoed. */
  function assertUndecodable(r: { statusCode: number; body: string }, fields: string[]) {
    assert.equal(r.statusCode, 422, r.body);
    const b = JSON.parse(r.body);
    assert.equal(b.error.code, 'VALIDATION_ERROR');
    assert.equal(b.error.action, 'fix_input');
    assert.deepEqual(
      b.error.detail.map((d: { field: string; type: string }) => [d.field, d.type]),
      fields.map((f) => [f, 'value_error.str.encoding']),
    );
    assert.match(b.error.detail[0].message, /UTF-8/);
    assert.ok(!/%ff|%ED%A0|%zz/i.test(r.body), 'the raw text is not echoed');
  }

  test('GET /api/v1/cves: a byte that is not UTF-8, an encoded lone surrogate, a bad escape (never a search of the raw text)', async () => {
    assertUndecodable(await get('/api/v1/cves?q=%FF'), ['query.q']);
    assertUndecodable(await get('/api/v1/cves?q=%ED%A0%80'), ['query.q']);
    assertUndecodable(await get('/api/v1/cves?q=%zz&vendor=siemens%'), ['query.q', 'query.vendor']);
    assertUndecodable(await get('/api/v1/catalog/vendors?q=sie%FFmens'), ['query.q']);
  });

  test('valid encodings keep their meaning: %25 is a literal percent sign, + a space, UTF-8 characters and repeats as before', async () => {
    const lit = await get('/api/v1/cves?q=%25FF');
    assert.equal(lit.statusCode, 200, lit.body);
    assert.deepEqual(lit.json().filters_applied, { q: '%FF' });
    const text = await get('/api/v1/cves?q=caf%C3%A9+%F0%9F%8F%AD&kev=true&&');
    assert.equal(text.statusCode, 200, text.body);
    assert.deepEqual(text.json().filters_applied, { q: 'café \u{1F3ED}', kev: true });
    const twice = await get('/api/v1/cves?q=a&q=b');
    assert.equal(twice.statusCode, 422);
    assert.deepEqual(
      twice.json().error.detail.map((d: { field: string }) => d.field),
      ['query.q'],
    );
    const unknown = await get('/api/v1/cves?%FF=1');
    assert.equal(unknown.statusCode, 400, 'an undecodable name is an unknown parameter');
    assert.equal(unknown.json().error.code, 'UNKNOWN_PARAMETER');
  });
});

describe('database errors are logged without the submitted data', () => {
  test('an integer cast and a jsonb parse that fail: SQLSTATE in the log, never the value, detail or where', async () => {
    logLines.length = 0;
    const secret = 'host-secret-7f3a9c-plant4';
    const a = await t.app.inject({ method: 'POST', url: '/api/v1/__test/db-int', payload: { value: secret } });
    assert.equal(a.statusCode, 500);
    assert.ok(!a.body.includes(secret), 'nor in the answer');
    const b = await t.app.inject({
      method: 'POST',
      url: '/api/v1/__test/db-jsonb',
      payload: { value: `{"asset_id":"${secret}","note":"\\u0000"}` },
    });
    assert.equal(b.statusCode, 500);
    const failures = logLines.map((l) => JSON.parse(l)).filter((o) => o.msg === 'request failed');
    assert.deepEqual(
      failures.map((f) => [f.err.type, f.err.sqlstate, f.code]),
      [
        ['DatabaseError', '22P02', 'INTERNAL_ERROR'],
        ['DatabaseError', '22P05', 'INTERNAL_ERROR'],
      ],
    );
    for (const f of failures) {
      assert.deepEqual(
        Object.keys(f.err).filter((k) => ['message', 'detail', 'where', 'hint', 'parameters', 'query'].includes(k)),
        [],
      );
      assert.match(f.err.stack, /^\s+at /, 'stack frames only, without the message line');
    }
    const all = logLines.join('\n');
    assert.ok(!all.includes(secret), `the submitted value is not in the log:\n${all}`);
    assert.ok(!all.includes('JSON data, line 1'), 'the where clause is not in the log');
    assert.ok(!all.includes('cannot be converted to text'), 'the detail is not in the log');
  });

  test('a refused NUL leaves no trace of the value in the log', async () => {
    logLines.length = 0;
    const secret = 'hmi-secret-name-42';
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: org.auth,
      payload: { name: `${secret}\u0000` },
    });
    assert.equal(r.statusCode, 422);
    assert.ok(logLines.length > 0, 'the request was logged');
    assert.ok(!logLines.join('\n').includes(secret));
  });
});
