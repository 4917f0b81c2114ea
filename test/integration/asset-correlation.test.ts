// v1 asset correlation end to end on the real NVD and CSAF fixtures (test/fixtures/PROVENANCE.md), imported by
// the real pipeline: affected, not affected, at the fix boundary, unknown version, alias spellings, runningOn.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, checksums, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { CorrelateResponse } from '../../src/http/routes/v1/asset-schemas.ts';
import { createHash } from 'node:crypto';
import { rebuildRanges } from '../../src/store/ranges.ts';
import { rangeRows } from '../../src/domain/correlate.ts';
import { expandGroup, groupRows, groupsDigestText, type StoredGroup } from '../../src/domain/range-groups.ts';
import { loadSources } from '../../src/store/ingest.ts';
import { recordOf } from '../../src/ingest/record-json.ts';
import type { Tx } from '../../src/store/db.ts';
import { createAssetCorrelation } from '../../src/services/asset-correlation.ts';
import { DEFAULT_OPTIONS } from '../../src/services/correlation-answer.ts';
import type { Principal } from '../../src/services/identity.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { DEFAULT_PLAN_CAPS } from '../../src/domain/plan-caps.ts';
import { apiClient } from '../helpers/api-client.ts';
import type { VulnintelClient } from '../../clients/typescript/index.ts';

let t: TestApp;
let pro: Awaited<ReturnType<typeof seedOrg>>;
/** The typed client (clients/typescript) with pro's key: well-formed requests go through it; malformed ones through inject. */
let api: VulnintelClient;
let dir: string;
const quiet = { log: { info() {}, warn() {} } };
before(async () => {
  t = await testApp();
  dir = feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES]);
  await importPaths(t.store.db, [dir], quiet);
  pro = await seedOrg(t.store, { tier: 'professional' });
  api = apiClient(t.app, pro.auth);
});
after(async () => {
  await t.close();
});

async function correlate(
  body: unknown,
  headers: Record<string, string> = pro.auth,
  path = '/api/v1/assets/correlate-cves',
) {
  return t.app.inject({ method: 'POST', url: path, headers, payload: body as object });
}

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';

describe('the range table', () => {
  test('import fills cve_ranges; a re-import with nothing changed writes nothing', async () => {
    const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_ranges`.execute(t.store.db);
    assert.ok(n.rows[0].n > 20, `rows: ${n.rows[0].n}`);
    const abb = await sql<{
      vendor_slug: string;
      product_key: string;
      source: string;
    }>`SELECT vendor_slug, product_key, source FROM cve_ranges WHERE cve_id = 'CVE-2023-0228' ORDER BY ord`.execute(
      t.store.db,
    );
    assert.deepEqual(
      [...new Set(abb.rows.map((r) => `${r.source}:${r.vendor_slug}:${r.product_key}`))],
      ['csaf:abb:s operations', 'nvd:abb:symphony plus s operations'],
    );
    const before = await checksums(t.store.db);
    await importPaths(t.store.db, [dir], quiet);
    assert.deepEqual(await checksums(t.store.db), before);
  });

  test("a changed range set replaces the CVE's rows and state; an empty one removes both (rolled back after)", async () => {
    const id = 'CVE-2023-0228';
    const rows = async (tx: Tx) =>
      (
        await sql<{
          source: string;
          ord: number;
        }>`SELECT source, ord FROM cve_ranges WHERE cve_id = ${id} ORDER BY ord`.execute(tx)
      ).rows;
    const stored = async (tx: Tx) =>
      (
        await sql<
          StoredGroup & { cve_id: string }
        >`SELECT cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor,
      cpe_product, base_key, ranges FROM cve_ranges WHERE cve_id = ${id} ORDER BY ord`.execute(tx)
      ).rows.flatMap((g) => expandGroup(g));
    const state = async (tx: Tx) =>
      (await sql<{ hash: string }>`SELECT hash FROM cve_range_state WHERE cve_id = ${id}`.execute(tx)).rows.map(
        (r) => r.hash,
      );
    const sources = await loadSources(t.store.db, [id]);
    const all = sources.records.get(id)!.map(recordOf);
    await assert.rejects(
      t.store.db.transaction().execute(async (tx) => {
        const before = await rows(tx);
        assert.deepEqual([...new Set(before.map((r) => r.source))], ['csaf', 'nvd']);
        const beforeRanges = (await stored(tx)).length;
        const [oldHash] = await state(tx);
        // Only the NVD record: its ranges alone, renumbered from 0, and a new state hash.
        const nvdOnly = all.filter((r) => r.source === 'nvd');
        const changed = await rebuildRanges(tx, [id], new Map([[id, nvdOnly]]), true);
        assert.deepEqual(
          changed.map((c) => [c.cve_id, c.before.length, c.after.length]),
          [[id, beforeRanges, nvdOnly.flatMap((r) => r.ranges ?? []).length]],
        );
        const after = await rows(tx);
        assert.deepEqual(
          after.map((r) => r.source),
          after.map(() => 'nvd'),
        );
        assert.deepEqual(
          after.map((r) => r.ord),
          after.map((_, i) => i),
        );
        const [newHash] = await state(tx);
        assert.ok(newHash && newHash !== oldHash);
        // The state hash is that of the groups' keys and texts (domain/range-groups.ts), and the stored groups expand
        // back into the rows as built (each row carrying its group's ordinal).
        const built = rangeRows(nvdOnly);
        const groups = groupRows(built);
        assert.ok(groups.length < built.length, `${groups.length} groups of ${built.length} rows`);
        assert.equal(newHash, createHash('sha256').update(groupsDigestText(groups)).digest('hex'));
        const back = await stored(tx);
        assert.deepEqual(
          back.map(({ ord: _o, cve_id: _c, ...r }) => r),
          JSON.parse(JSON.stringify(built.map(({ ord: _o, ...r }) => r))),
        );
        assert.deepEqual(
          [...new Set(back.map((r) => r.ord))],
          groups.map((g) => g.ord),
        );
        // The same set again: nothing changes.
        assert.deepEqual(await rebuildRanges(tx, [id], new Map([[id, nvdOnly]])), []);
        // No ranges at all: rows and state are gone.
        const gone = await rebuildRanges(tx, [id], new Map(), true);
        assert.deepEqual(
          gone.map((c) => [c.after.length, c.before.length]),
          [[0, back.length]],
        );
        assert.deepEqual(await rows(tx), []);
        assert.deepEqual(await state(tx), []);
        // And back: a CVE with no state row gets its rows written again, with the import's own hash from the records
        // read back (key order: test/unit/correlate-rules.test.ts covers records stored as jsonb before migration 1100).
        await rebuildRanges(tx, [id], new Map([[id, all]]));
        assert.deepEqual((await rows(tx)).length, before.length);
        assert.deepEqual((await stored(tx)).length, beforeRanges);
        assert.deepEqual(await state(tx), [oldHash]);
        assert.deepEqual(await rebuildRanges(tx, [id], new Map([[id, all]])), []);
        throw new Error('rollback');
      }),
      /rollback/,
    );
  });
});

describe('correlate-cves on real records', () => {
  test('affected below the CISA advisory fix, with the deciding range, fixed version and card fields', async () => {
    const { data, error, response } = await api.POST('/api/v1/assets/correlate-cves', {
      body: { assets: [{ asset_id: 'drive-1', vendor: 'Siemens AG', product: DRIVE, version: 'V3.1.3' }] },
    });
    assert.equal(response.status, 200, JSON.stringify(error));
    const a = data!.data.assets[0];
    assert.equal(a.asset_id, 'drive-1');
    const c = a.cves.find((x) => x.cve_id === 'CVE-2024-46886');
    assert.ok(c, JSON.stringify(a.cves.map((x) => x.cve_id)));
    assert.equal(c.status, 'affected');
    assert.equal(c.fixed_version, 'V3.1.4');
    assert.deepEqual(
      [c.range?.source, c.range?.source_name, c.range?.source_key, c.range?.end],
      ['csaf', 'CISA advisory', 'ICSA-24-284-01', { version: 'V3.1.4', inclusive: false }],
    );
    assert.equal(c.match.confidence, 'exact');
    assert.deepEqual(c._links, { self: '/api/v1/cves/CVE-2024-46886' });
    assert.equal(typeof c.bcs_score, 'number');
    assert.ok(a.matched_products.some((p) => p.product === DRIVE));
    assert.equal(a.counts.affected, a.cves.filter((x) => x.status === 'affected').length);
  });

  test('a nameplate without the advisory\'s "(incl. SIPLUS variants)" note matches it (ICSA-24-284-01, all versions affected)', async () => {
    const r = await correlate({
      assets: [
        {
          asset_id: 'pc2',
          vendor: 'Siemens',
          product: 'SIMATIC ET 200SP Open Controller CPU 1515SP PC2',
          version: 'V21.9',
        },
        {
          asset_id: 'pc2-siplus',
          vendor: 'Siemens AG',
          product: 'SIMATIC ET 200SP Open Controller CPU 1515SP PC2 (incl. SIPLUS variants)',
          version: 'V21.9',
        },
      ],
    });
    assert.equal(r.statusCode, 200, r.body);
    for (const a of r.json().data.assets) {
      const c = a.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886');
      assert.ok(c, `${a.asset_id}: ${JSON.stringify(a.cves.map((x: { cve_id: string }) => x.cve_id))}`);
      assert.equal(c.status, 'affected');
      assert.equal(c.range.product, 'SIMATIC ET 200SP Open Controller CPU 1515SP PC2 (incl. SIPLUS variants)');
      assert.equal(c.match.confidence, a.asset_id === 'pc2' ? 'normalised' : 'exact');
    }
  });

  test('a nameplate without the order number the advisory names: the variant match, needs_review with the variant named', async () => {
    const r = await correlate({
      assets: [
        {
          asset_id: 'drive-plain',
          vendor: 'Siemens',
          product: 'SIMATIC Drive Controller CPU 1504D TF',
          version: 'V3.1.3',
        },
        {
          asset_id: 'drive-fixed',
          vendor: 'Siemens',
          product: 'SIMATIC Drive Controller CPU 1504D TF',
          version: 'V3.1.4',
        },
      ],
      options: { include_not_affected: true },
    });
    assert.equal(r.statusCode, 200, r.body);
    const [plain, fixed] = r.json().data.assets;
    const c = plain.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886');
    assert.ok(c, JSON.stringify(plain.cves.map((x: { cve_id: string }) => x.cve_id)));
    assert.equal(c.status, 'needs_review');
    assert.equal(c.match.confidence, 'variant');
    assert.equal(c.reason, `version V3.1.3 is in < V3.1.4 for the variant "${DRIVE}"; the asset names no variant`);
    assert.equal(c.fixed_version, 'V3.1.4');
    assert.ok(
      plain.matched_products.some(
        (p: { product: string; confidence: string }) => p.product === DRIVE && p.confidence === 'variant',
      ),
    );
    assert.equal(fixed.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886')?.status, 'not_affected');
    // /check counts what the full call lists: the variant's CVE among the needs_review.
    const k = await correlate(
      {
        assets: [
          {
            asset_id: 'drive-plain',
            vendor: 'Siemens',
            product: 'SIMATIC Drive Controller CPU 1504D TF',
            version: 'V3.1.3',
          },
        ],
      },
      pro.auth,
      '/api/v1/assets/correlate-cves/check',
    );
    assert.equal(k.statusCode, 200, k.body);
    const listed = (status: string) => plain.cves.filter((x: { status: string }) => x.status === status).length;
    assert.deepEqual(k.json().data.assets[0].counts, {
      affected: listed('affected'),
      not_affected: listed('not_affected'),
      needs_review: listed('needs_review'),
    });
    assert.ok(listed('needs_review') >= 1);
  });

  test('a nameplate naming a product family: the CVEs of its products, each needs_review with the product named; one word names none', async () => {
    const family = {
      asset_id: 'drive-family',
      vendor: 'Siemens AG',
      product: 'SIMATIC Drive Controller',
      version: 'V3.1.3',
    };
    const r = await correlate({
      assets: [
        family,
        { ...family, asset_id: 'drive-family-fixed', version: 'V3.1.4' },
        { ...family, asset_id: 'one-word', product: 'SIMATIC' },
      ],
      options: { include_not_affected: true },
    });
    assert.equal(r.statusCode, 200, r.body);
    const [inside, fixed, oneWord] = r.json().data.assets;
    const c = inside.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886');
    assert.ok(c, JSON.stringify(inside.cves.map((x: { cve_id: string }) => x.cve_id)));
    assert.equal(c.status, 'needs_review');
    assert.equal(c.match.confidence, 'member');
    assert.match(
      c.reason,
      /^version V3\.1\.3 is in < V3\.1\.4 for "SIMATIC Drive Controller CPU 150\dD TF[^"]*", one product of the family "SIMATIC Drive Controller" the asset names; which product the asset is decides$/,
    );
    assert.equal(c.fixed_version, 'V3.1.4');
    assert.ok(
      inside.cves.every(
        (x: { status: string; match: { confidence: string } }) =>
          x.match.confidence !== 'member' || x.status !== 'affected',
      ),
      'a member match is never affected',
    );
    assert.ok(
      inside.matched_products.length >= 2 &&
        inside.matched_products.every(
          (p: { product: string; confidence: string }) =>
            p.confidence === 'member' && p.product.startsWith('SIMATIC Drive Controller '),
        ),
      JSON.stringify(inside.matched_products),
    );
    // At the fix the products' ranges do not cover the version.
    assert.equal(fixed.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886')?.status, 'not_affected');
    assert.deepEqual([oneWord.cves, oneWord.matched_products], [[], []]);
    // /check counts what the full call lists.
    const k = await correlate({ assets: [family] }, pro.auth, '/api/v1/assets/correlate-cves/check');
    assert.equal(k.statusCode, 200, k.body);
    const listed = (status: string) => inside.cves.filter((x: { status: string }) => x.status === status).length;
    assert.deepEqual(k.json().data.assets[0].counts, {
      affected: listed('affected'),
      not_affected: listed('not_affected'),
      needs_review: listed('needs_review'),
    });
    assert.equal(k.json().data.assets[0].matched, true);
  });

  test('the bytes sent (JSON.stringify, ADR 0038) are exactly the documented CorrelateResponse, every option on', async () => {
    const ajv = new Ajv.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const valid = ajv.compile(CorrelateResponse);
    const assets = [
      { asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.2' },
      { asset_id: 'drive-2', vendor: 'Siemens', product: DRIVE },
      {
        asset_id: 'abb-1',
        vendor: 'ABB Ltd',
        product: 'Symphony Plus S+ Operations',
        version: '3.3',
        cpe: 'cpe:2.3:a:abb:symphony_plus_s\\+_operations:3.3:*:*:*:*:*:*:*',
      },
      { asset_id: 'none-1', vendor: 'Acme', product: 'Nothing' },
      { asset_id: '', vendor: 'Siemens', product: DRIVE },
    ];
    for (const options of [{}, { include_not_affected: true, sort: 'newest', cve_page: 1, cve_page_size: 2 }]) {
      const r = await correlate({ assets, options });
      assert.equal(r.statusCode, 200, r.body);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      const body = JSON.parse(r.body);
      assert.ok(valid(body), JSON.stringify(valid.errors?.slice(0, 3)));
      assert.ok(body.data.assets.some((a: { cves: unknown[] }) => a.cves.length > 0));
      assert.equal(body.data.rejected.length, 1);
    }
  });

  test('at the fix boundary: not affected, listed only with include_not_affected', async () => {
    const asset = { asset_id: 'drive-2', vendor: 'Siemens', product: DRIVE, version: '3.1.4' };
    const r = (await correlate({ assets: [asset] })).json().data.assets[0];
    assert.equal(
      r.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886'),
      undefined,
    );
    assert.ok(r.counts.not_affected >= 1);
    const all = (await correlate({ assets: [asset], options: { include_not_affected: true } })).json().data.assets[0];
    const c = all.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886');
    assert.equal(c.status, 'not_affected');
    assert.match(c.reason, /outside every stated range/);
  });

  test('unknown version: needs_review with the reason', async () => {
    const r = (
      await correlate({ assets: [{ asset_id: 'drive-3', vendor: 'Siemens', product: DRIVE, version: '' }] })
    ).json().data.assets[0];
    const c = r.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2024-46886');
    assert.equal(c.status, 'needs_review');
    assert.match(c.reason, /version unknown/);
    assert.equal(r.version, null);
  });

  test('alias spelling and CPE product tokens: ABB Ltd / Symphony Plus S+ Operations against NVD ranges', async () => {
    const body = {
      assets: [
        { asset_id: 'spo-32', vendor: 'ABB Ltd', product: 'Symphony Plus S+ Operations', version: '3.2' },
        { asset_id: 'spo-23', vendor: 'abb', product: 'symphony_plus_s+_operations', version: '2.3' },
        { asset_id: 'spo-21sp2', vendor: 'ABB', product: 'Symphony Plus S+ Operations', version: '2.1 SP2' },
      ],
      options: { include_not_affected: true },
    };
    const r = await correlate(body);
    assert.equal(r.statusCode, 200, r.body);
    const [a, b, c] = r.json().data.assets;
    const cve = (x: { cves: { cve_id: string }[] }) =>
      x.cves.find((y) => y.cve_id === 'CVE-2023-0228') as unknown as {
        status: string;
        match: { confidence: string };
        range: { source: string };
      };
    assert.deepEqual([cve(a).status, cve(a).match.confidence, cve(a).range.source], ['affected', 'normalised', 'nvd']);
    assert.equal(cve(b).status, 'not_affected');
    assert.equal(cve(b).match.confidence, 'exact');
    // NVD lists 2.1 SP2 as an exact vulnerable version (cpe update component sp2).
    assert.equal(cve(c).status, 'affected');
  });

  test("an asset with a CPE and no version: the CPE's version (and update) decides, as if typed; /check agrees", async () => {
    // Not of unknown version, which would make every CVE of the product needs_review, whatever the CPE says.
    const cpe = (v: string, u = '*') => `cpe:2.3:a:abb:symphony_plus_s\\+_operations:${v}:${u}:*:*:*:*:*:*`;
    const assets = [
      { asset_id: 'spo-cpe-32', vendor: 'ABB', product: 'Symphony Plus S+ Operations', cpe: cpe('3.2') },
      { asset_id: 'spo-cpe-23', vendor: 'ABB', product: 'Symphony Plus S+ Operations', version: '', cpe: cpe('2.3') },
      { asset_id: 'spo-cpe-21sp2', vendor: 'ABB', product: 'Symphony Plus S+ Operations', cpe: cpe('2.1', 'sp2') },
      { asset_id: 'spo-cpe-any', vendor: 'ABB', product: 'Symphony Plus S+ Operations', cpe: cpe('*') },
    ];
    // A key of its own: the file's calls stay within the per-key rate.
    const key = await seedKey(t.store, pro.orgId, null, { role: 'admin' });
    const r = await correlate({ assets, options: { include_not_affected: true } }, key.auth);
    assert.equal(r.statusCode, 200, r.body);
    const got = r.json().data.assets as {
      version: string | null;
      cves: { cve_id: string; status: string; reason: string }[];
    }[];
    const cve = (a: (typeof got)[number]) => a.cves.find((y) => y.cve_id === 'CVE-2023-0228')!;
    assert.deepEqual(
      got.map((a) => [a.version, cve(a).status]),
      [
        ['3.2', 'affected'],
        ['2.3', 'not_affected'],
        ['2.1 sp2', 'affected'],
        [null, 'needs_review'],
      ],
    );
    assert.match(cve(got[0]).reason, /^version 3\.2 is in /);
    const check = await correlate({ assets }, key.auth, '/api/v1/assets/correlate-cves/check');
    assert.deepEqual(
      check.json().data.assets.map((a: { counts: unknown }) => a.counts),
      r.json().data.assets.map((a: { counts: unknown }) => a.counts),
    );
  });

  test('firmware vulnerable only on its hardware: the asset names the device; an unorderable version needs review', async () => {
    const r = (
      await correlate({ assets: [{ asset_id: 'rtu-1', vendor: 'Siemens', product: 'CP-8031', version: 'CPCI85 V04' }] })
    ).json().data.assets[0];
    const c = r.cves.find((x: { cve_id: string }) => x.cve_id === 'CVE-2023-28489');
    assert.equal(c.status, 'needs_review');
    assert.match(c.reason, /cannot be ordered with certainty/);
  });

  test('unknown vendor or product: no match, empty lists', async () => {
    const { data } = await api.POST('/api/v1/assets/correlate-cves', {
      body: { assets: [{ asset_id: 'x-1', vendor: 'Nobody Inc', product: 'Nothing', version: '1.0' }] },
    });
    const r = data!.data.assets[0];
    assert.deepEqual(
      [r.matched_products, r.cves, r.counts],
      [[], [], { affected: 0, not_affected: 0, needs_review: 0 }],
    );
  });

  test('refused assets go to rejected[] with per-field codes; all refused → 422', async () => {
    const r = await correlate({
      assets: [
        { asset_id: '10.0.0.7', vendor: 'Siemens', product: DRIVE, version: '1' },
        { asset_id: 'ok-1', vendor: 'Siemens', product: DRIVE, version: 'N/A' },
        { asset_id: 'ok-2', vendor: 'Siemens', product: DRIVE, hostname: 'plc7' },
        { asset_id: 'ok-3', vendor: 'Siemens', product: DRIVE, cpe: 'nope' },
        { asset_id: 'ok-4', vendor: 'Siemens', product: DRIVE, version: 'V3.0' },
        { asset_id: 'ok-5', vendor: 'Siemens', product: DRIVE, version: 'V3.0 (ops@plant.example)' },
      ],
    });
    assert.equal(r.statusCode, 200, r.body);
    const d = r.json().data;
    assert.deepEqual(
      d.rejected.map((x: { index: number; errors: { code: string; field: string }[] }) => [
        x.index,
        x.errors.map((e) => `${e.code}:${e.field}`),
      ]),
      [
        [0, ['forbidden_value:asset_id']],
        [1, ['placeholder_value:version']],
        [2, ['forbidden_field:hostname']],
        [3, ['invalid_cpe:cpe']],
        [5, ['forbidden_value:version']],
      ],
    );
    assert.doesNotMatch(r.body, /ops@plant/, 'the refused version is not echoed');
    assert.equal(d.rejected[0].asset_id, null);
    assert.deepEqual(
      d.assets.map((a: { asset_id: string }) => a.asset_id),
      ['ok-4'],
    );
    const all = await correlate({ assets: [{ asset_id: 'aa:bb:cc:dd:ee:ff', vendor: 'x', product: 'y' }] });
    assert.equal(all.statusCode, 422);
    assert.equal(all.json().data.rejected[0].errors[0].code, 'forbidden_value');
    assert.deepEqual(
      all.json().error.detail.map((d: { field: string }) => d.field),
      ['body.assets'],
    );
  });

  test('priority order: affected before needs_review before not_affected; sort and filters', async () => {
    const r = (
      await correlate({
        assets: [{ asset_id: 'd', vendor: 'Siemens', product: DRIVE, version: 'V3.0' }],
        options: { include_not_affected: true },
      })
    ).json().data.assets[0];
    const ranks = r.cves.map((c: { priority_rank: number }) => c.priority_rank);
    assert.deepEqual(
      ranks,
      [...ranks].sort((a: number, b: number) => a - b),
    );
    const order = { affected: 0, needs_review: 1, not_affected: 2 } as Record<string, number>;
    const st = r.cves.map((c: { status: string }) => order[c.status]);
    assert.deepEqual(st, [...st].sort());
    const only = (
      await correlate({
        assets: [{ asset_id: 'd', vendor: 'Siemens', product: DRIVE, version: 'V3.0' }],
        options: { affected_only: true, cve_page_size: 1 },
      })
    ).json().data.assets[0];
    assert.ok(only.cves.length <= 1);
    assert.ok(only.cves.every((c: { status: string }) => c.status === 'affected'));
    assert.equal(only.cves_page.total, r.counts.affected);
    const bad = await correlate({
      assets: [{ asset_id: 'd', vendor: 'Siemens', product: DRIVE }],
      options: { sort: 'random' },
    });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().error.detail[0].field, 'body.options.sort');
  });
});

describe('/check', () => {
  test('per asset only matched, counts by status and severity, KEV presence', async () => {
    const { data, error, response } = await api.POST('/api/v1/assets/correlate-cves/check', {
      body: {
        assets: [
          { asset_id: 'drive-1', vendor: 'Siemens AG', product: DRIVE, version: 'V3.1.3' },
          { asset_id: 'inv-9', vendor: 'Nobody', product: 'Nothing', version: '1' },
        ],
      },
    });
    assert.equal(response.status, 200, JSON.stringify(error));
    const [a, b] = data!.data.assets;
    const full = (
      await api.POST('/api/v1/assets/correlate-cves', {
        body: { assets: [{ asset_id: 'drive-1', vendor: 'Siemens AG', product: DRIVE, version: 'V3.1.3' }] },
      })
    ).data!.data.assets[0];
    assert.deepEqual(a.counts, full.counts);
    assert.equal(a.matched, true);
    assert.equal(
      Object.values(a.severity).reduce((x, y) => x + y, 0),
      full.counts.affected + full.counts.needs_review,
    );
    assert.deepEqual(b, {
      asset_id: 'inv-9',
      matched: false,
      counts: { affected: 0, not_affected: 0, needs_review: 0 },
      severity: { critical: 0, high: 0, medium: 0, low: 0, none: 0 },
      known_exploited: false,
    });
    assert.equal('cves' in a, false);
  });
});

describe('environment storage', () => {
  test('results stored per asset_id, replaced by a later call (last writer wins)', async () => {
    const env = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: pro.auth,
      payload: { name: 'Plant 1' },
    });
    assert.equal(env.statusCode, 201, env.body);
    const environment_id = env.json().data.id;
    const one = await correlate({
      environment_id,
      assets: [
        { asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' },
        { asset_id: 'drive-2', vendor: 'Siemens', product: DRIVE, version: 'V3.1.4' },
      ],
    });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json().data.stored, true);
    await correlate({
      environment_id,
      assets: [{ asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.4' }],
    });
    const stored = await t.app.services.assets.stored(pro.orgId, environment_id);
    assert.deepEqual(
      stored.map((s) => [s.asset_id, s.result.version]),
      [
        ['drive-1', 'V3.1.4'],
        ['drive-2', 'V3.1.4'],
      ],
    );
    const foreign = await seedOrg(t.store, { tier: 'professional' });
    const f = await correlate(
      { environment_id, assets: [{ asset_id: 'a', vendor: 'Siemens', product: DRIVE }] },
      foreign.auth,
    );
    assert.equal(f.statusCode, 404);
    assert.equal(f.json().error.detail.error, 'environment_not_found');
  });

  test('two assets with one asset_id in a call: the second is refused (duplicate_asset_id), the first answered and stored; /check the same', async () => {
    const env = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: pro.auth,
      payload: { name: 'Plant dup' },
    });
    const environment_id = env.json().data.id;
    // A key of its own: the file's calls stay within the per-key rate.
    const key = await seedKey(t.store, pro.orgId, null, { role: 'admin' });
    // Answering both would give two contradictory results for one asset_id, and only the last would be stored.
    const assets = [
      { asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' },
      { asset_id: 'drive-2', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' },
      { asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.4' },
      // NFKC makes this "drive-1" too.
      { asset_id: 'ｄｒｉｖｅ-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.4' },
    ];
    const r = await correlate({ environment_id, assets }, key.auth);
    assert.equal(r.statusCode, 200, r.body);
    const data = r.json().data;
    assert.deepEqual(
      data.assets.map((a: { asset_id: string; version: string }) => [a.asset_id, a.version]),
      [
        ['drive-1', 'V3.1.3'],
        ['drive-2', 'V3.1.3'],
      ],
    );
    const refusal = (index: number) => ({
      asset_id: 'drive-1',
      index,
      errors: [
        {
          code: 'duplicate_asset_id',
          field: 'asset_id',
          message:
            'asset_id is the same as asset 0 of this request; send each asset once (this asset was not evaluated)',
        },
      ],
      retryable: false,
      retry_after_seconds: null,
      action: 'fix_input',
    });
    assert.deepEqual(data.rejected, [refusal(2), refusal(3)]);
    assert.deepEqual(data.counts, { affected: 2, not_affected: 0, needs_review: 0 });
    const stored = await t.app.services.assets.stored(pro.orgId, environment_id);
    assert.deepEqual(
      stored.map((s) => [s.asset_id, s.result.version]),
      [
        ['drive-1', 'V3.1.3'],
        ['drive-2', 'V3.1.3'],
      ],
    );
    const check = await correlate({ assets }, key.auth, '/api/v1/assets/correlate-cves/check');
    assert.equal(check.statusCode, 200, check.body);
    assert.deepEqual(
      check.json().data.assets.map((a: { asset_id: string }) => a.asset_id),
      ['drive-1', 'drive-2'],
    );
    assert.deepEqual(check.json().data.rejected, [refusal(2), refusal(3)]);
  });

  test('ranks are the priority order of every CVE: the answer under another sort and the stored copy agree', async () => {
    const env = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: pro.auth,
      payload: { name: 'Plant 4' },
    });
    assert.equal(env.statusCode, 201, env.body);
    const environment_id = env.json().data.id;
    const asset = {
      asset_id: 'win-r',
      vendor: 'Microsoft Corporation',
      product: 'Windows 10 1809',
      version: '10.0.17763.100',
    };
    const r = await correlate({
      environment_id,
      assets: [asset],
      options: { sort: 'newest', include_not_affected: true },
    });
    assert.equal(r.statusCode, 200, r.body);
    const answered = r.json().data.assets[0].cves as { cve_id: string; priority_rank: number }[];
    const [stored] = await t.app.services.assets.stored(pro.orgId, environment_id);
    const storedCves = (stored.result as unknown as { cves: { cve_id: string; priority_rank: number }[] }).cves;
    assert.ok(answered.length >= 2, 'the host has several CVEs');
    // The stored copy is in priority order: ranks 1..n.
    assert.deepEqual(
      storedCves.map((c) => c.priority_rank),
      storedCves.map((_, i) => i + 1),
    );
    const rankOf = new Map(storedCves.map((c) => [c.cve_id, c.priority_rank]));
    assert.deepEqual(
      answered.map((c) => c.priority_rank),
      answered.map((c) => rankOf.get(c.cve_id)),
    );
    assert.notDeepEqual(
      answered.map((c) => c.cve_id),
      storedCves.map((c) => c.cve_id),
      'sorted by date, not by priority',
    );
  });

  test('a large store goes in several statements of one transaction: the same rows as one statement', async () => {
    const env = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: pro.auth,
      payload: { name: 'Plant 3' },
    });
    assert.equal(env.statusCode, 201, env.body);
    const environment_id = env.json().data.id;
    const assets = ['drive-a', 'drive-b', 'drive-c'].map((asset_id, i) => ({
      asset_id,
      vendor: 'Siemens',
      product: DRIVE,
      version: `V3.1.${i + 2}`,
    }));
    const principal: Principal = {
      via: 'key',
      orgId: pro.orgId,
      orgName: 'x',
      memberId: 0,
      email: 'x@example.test',
      name: 'x',
      memberSince: new Date(),
      role: 'admin',
      tier: 'professional',
      keyId: null,
      keyStart: null,
      kind: 'standard',
      scopes: ['read', 'write'],
    };
    // Statements of at most ~200 characters of JSON: one asset each.
    const svc = createAssetCorrelation({
      db: t.store.db,
      clock: systemClock,
      publicUrl: 'http://vulnintel.test',
      planCaps: DEFAULT_PLAN_CAPS,
      storeBatchChars: 200,
    });
    const r = await svc.correlate({
      principal,
      requestId: 'vi-req-000000000001',
      assets,
      environmentId: environment_id,
      options: DEFAULT_OPTIONS,
    });
    assert.equal(r.stored, true);
    const byOne = await t.app.services.assets.stored(pro.orgId, environment_id);
    // The same call through the route (one statement) stores the same results.
    await correlate({ environment_id, assets });
    const byRoute = await t.app.services.assets.stored(pro.orgId, environment_id);
    assert.deepEqual(
      byOne.map((x) => [x.asset_id, x.result]),
      byRoute.map((x) => [x.asset_id, x.result]),
    );
    assert.deepEqual(
      byOne.map((x) => x.request_id),
      ['vi-req-000000000001', 'vi-req-000000000001', 'vi-req-000000000001'],
    );
    assert.ok(
      byOne.every((x) => x.result.cves.length > 0),
      'each asset stored with its CVEs',
    );
  });

  test('20 parallel stores of the same asset_ids: one consistent winner per asset', async () => {
    const env = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: pro.auth,
      payload: { name: 'Plant 2' },
    });
    const environment_id = env.json().data.id;
    const key = await seedKey(t.store, pro.orgId, null, { role: 'admin' });
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        correlate(
          {
            environment_id,
            assets: ['a', 'b'].map((id) => ({ asset_id: id, vendor: 'Siemens', product: DRIVE, version: `V3.0.${i}` })),
          },
          i % 2 ? key.auth : pro.auth,
        ),
      ),
    );
    for (const r of rs) assert.equal(r.statusCode, 200, r.body);
    const stored = await t.app.services.assets.stored(pro.orgId, environment_id);
    assert.equal(stored.length, 2);
    // Both assets come from the same call (one statement per call).
    assert.equal(stored[0].request_id, stored[1].request_id);
    assert.equal(stored[0].result.version, stored[1].result.version);
  });
});

// Apache Tomcat from two real CVE records (test/fixtures/cve5): the CNA's vendor "Apache Software Foundation" and
// CISA-ADP's CPE spelling apache / tomcat: the alias table makes them one vendor (docs/correlation.md §2 "One
// organisation"). gVectors (CVE-2023-46310: CNA
// "gVectors Team", CPE gvectors) is still two slugs, read as one organisation.
describe('correlate-cves across the vendor spellings of one organisation', () => {
  before(async () => {
    await importPaths(
      t.store.db,
      [feedDir(['CVE-2024-34750', 'CVE-2018-8034', 'CVE-2023-46310'].map((c) => fixture('cve5', `${c}.json`)))],
      quiet,
    );
  });
  type Matched = { vendor: string; product: string; confidence: string; basis: string };

  test('"Apache" and "Apache Software Foundation" find the same CVEs, with the same verdicts, as one stored product', async () => {
    const r = await correlate({
      assets: [
        { asset_id: 'short', vendor: 'Apache', product: 'Tomcat', version: '9.0.50' },
        { asset_id: 'long', vendor: 'Apache Software Foundation', product: 'Apache Tomcat', version: '9.0.50' },
        { asset_id: 'old', vendor: 'apache', product: 'tomcat', version: '9.0.9' },
        { asset_id: 'other', vendor: 'Eclipse Foundation', product: 'Tomcat', version: '9.0.50' },
      ],
      options: { include_not_affected: true },
    });
    assert.equal(r.statusCode, 200, r.body);
    const [short, long, old, other] = r.json().data.assets;
    const verdicts = (a: { cves: { cve_id: string; status: string }[] }) =>
      a.cves.map((c) => `${c.cve_id}:${c.status}`).sort();
    assert.deepEqual(verdicts(short), ['CVE-2018-8034:not_affected', 'CVE-2024-34750:affected']);
    assert.deepEqual(verdicts(long), verdicts(short));
    // 9.0.9 is the inclusive end of "9.0.0.M1 to 9.0.9" (CVE-2018-8034).
    assert.deepEqual(verdicts(old), ['CVE-2018-8034:affected', 'CVE-2024-34750:affected']);
    assert.deepEqual(other.cves, []);
    // One vendor slug and product key for both spellings: one matched product, with no cross-organisation wording.
    for (const a of [short, long]) {
      assert.equal(a.matched_products.length, 1, JSON.stringify(a.matched_products));
      assert.doesNotMatch((a.matched_products[0] as Matched).basis, /same organisation/);
    }
    assert.equal((short.matched_products[0] as Matched).confidence, 'exact');
    // The check endpoint counts the same.
    const c = await correlate(
      { assets: [{ asset_id: 'short', vendor: 'Apache', product: 'Tomcat', version: '9.0.50' }] },
      pro.auth,
      '/api/v1/assets/correlate-cves/check',
    );
    assert.equal(c.statusCode, 200, c.body);
    assert.deepEqual(c.json().data.assets[0].counts, { affected: 1, not_affected: 1, needs_review: 0 });
  });

  test('"gVectors" and "gVectors Team" (outside the alias table) find the same CVE, both spellings matched', async () => {
    const r = await correlate({
      assets: [
        { asset_id: 'short', vendor: 'gVectors', product: 'wpDiscuz', version: '7.6.10' },
        { asset_id: 'long', vendor: 'gVectors Team', product: 'wpDiscuz', version: '7.6.11' },
      ],
      options: { include_not_affected: true },
    });
    assert.equal(r.statusCode, 200, r.body);
    const [short, long] = r.json().data.assets;
    assert.deepEqual(
      short.cves.map((c: { cve_id: string; status: string }) => [c.cve_id, c.status]),
      [['CVE-2023-46310', 'affected']],
    );
    assert.deepEqual(
      long.cves.map((c: { cve_id: string; status: string }) => [c.cve_id, c.status]),
      [['CVE-2023-46310', 'not_affected']],
    );
    for (const a of [short, long]) {
      const spellings = (a.matched_products as Matched[]).map((p) => `${p.vendor}/${p.product}/${p.confidence}`).sort();
      assert.deepEqual(
        spellings,
        a === short
          ? ['gVectors Team/wpDiscuz/normalised', 'gvectors/wpdiscuz/exact']
          : ['gVectors Team/wpDiscuz/exact', 'gvectors/wpdiscuz/normalised'],
      );
    }
    const cross = (short.matched_products as Matched[]).find((p) => p.vendor === 'gVectors Team')!;
    assert.match(cross.basis, /the source's vendor "gVectors Team" \(gvectorsteam\) read as the same organisation/);
  });
});

describe('answers over a real socket (streamed; pooled chunks are reused once written)', () => {
  test('12 concurrent calls of different sizes, then 6 in a row, each get their own answer intact', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    // Bodies of different answer sizes, so a reused buffer is larger than the answer written into it.
    const bodies = [
      { assets: [{ asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.2' }] },
      { assets: [{ asset_id: 'drive-2', vendor: 'Siemens', product: DRIVE }], options: { include_not_affected: true } },
      {
        assets: [
          { asset_id: 'abb-1', vendor: 'ABB Ltd', product: 'Symphony Plus S+ Operations', version: '3.3' },
          { asset_id: 'rtu-1', vendor: 'Siemens', product: 'CP-8031', version: 'CPCI85 V04' },
        ],
      },
      { assets: [{ asset_id: 'x-1', vendor: 'Nobody Inc', product: 'Nothing', version: '1.0' }] },
    ];
    // What each body answers, from in-process calls (no socket); the envelope's request data aside.
    const expected = await Promise.all(bodies.map(async (b) => JSON.parse((await correlate(b)).body).data));
    const sizes = expected.map((d) => JSON.stringify(d).length);
    assert.equal(new Set(sizes).size, bodies.length, `the answers differ in size: ${sizes.join(', ')}`);
    assert.ok(
      expected[2].assets.every((a: { cves: unknown[] }) => a.cves.length > 0),
      'the two-asset body matches CVEs for both',
    );
    const call = async (i: number) => {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/assets/correlate-cves`, {
        method: 'POST',
        headers: { ...pro.auth, 'content-type': 'application/json' },
        body: JSON.stringify(bodies[i % bodies.length]),
      });
      const text = await r.text();
      assert.equal(r.status, 200, text.slice(0, 300));
      // Streamed (ADR 0051): chunked, no content-length.
      assert.deepEqual([r.headers.get('transfer-encoding'), r.headers.get('content-length')], ['chunked', null]);
      assert.deepEqual(JSON.parse(text).data, expected[i % bodies.length], `call ${i}`);
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => call(i)));
    for (let i = 0; i < 6; i++) await call(5 - i);
  });
});

// Real advisories and records where one source states every version: CISA's "vers:all/*" product_version
// (ICSA-17-227-01, Advantech WebOP) is every version; NVD's `windows_server_2019:-` against the Microsoft CNA's
// "< 10.0.17763.4252" (CVE-2023-28252, known exploited) leaves a patched build needs_review, not affected.
describe('correlate-cves where a source states every version', () => {
  // A key of its own: the calls above spent the per-key minute budget.
  let own: Awaited<ReturnType<typeof seedOrg>>;
  const correlate = (body: unknown, _headers?: unknown, path?: string) =>
    t.app.inject({
      method: 'POST',
      url: path ?? '/api/v1/assets/correlate-cves',
      headers: own.auth,
      payload: body as object,
    });
  before(async () => {
    // Two directories: the NVD and CVE record files have the same name.
    await importPaths(
      t.store.db,
      [
        feedDir([fixture('csaf', 'icsa-17-227-01.json'), fixture('nvd', 'CVE-2023-28252.json')]),
        feedDir([fixture('cve5', 'CVE-2023-28252.json')]),
      ],
      quiet,
    );
    own = await seedOrg(t.store, { tier: 'professional' });
  });

  test('"vers:all/*" in a CISA advisory: affected at any version and with none', async () => {
    const r = await correlate({
      assets: [
        { asset_id: 'panel-1', vendor: 'Advantech', product: 'WebOP', version: '2.1.0' },
        { asset_id: 'panel-2', vendor: 'Advantech Co., Ltd.', product: 'WebOP' },
      ],
    });
    assert.equal(r.statusCode, 200, r.body);
    for (const a of r.json().data.assets) {
      assert.deepEqual(
        a.cves.map((c: { cve_id: string; status: string }) => [c.cve_id, c.status]),
        [['CVE-2017-12705', 'affected']],
        a.asset_id,
      );
      assert.deepEqual(
        [a.cves[0].range.source, a.cves[0].range.source_key, a.cves[0].range.version],
        ['csaf', 'ICSA-17-227-01', null],
      );
    }
    assert.equal(
      r.json().data.assets[0].cves[0].reason,
      'version 2.1.0 is in all versions (CISA advisory ICSA-17-227-01)',
    );
  });

  test('Windows Server 2019: below the fix affected, past it needs_review (NVD names no version), and /check agrees', async () => {
    const assets = [
      { asset_id: 'srv-old', vendor: 'Microsoft', product: 'Windows Server 2019', version: '10.0.17763.4131' },
      {
        asset_id: 'srv-patched',
        vendor: 'Microsoft Corporation',
        product: 'Windows Server 2019',
        version: '10.0.17763.4974',
      },
    ];
    const r = await correlate({ assets, options: { include_not_affected: true } });
    assert.equal(r.statusCode, 200, r.body);
    const [old, patched] = r.json().data.assets;
    type Cve = { cve_id: string; status: string; reason: string; known_exploited: boolean; range: { source: string } };
    const clfs = (a: { cves: Cve[] }) => a.cves.find((c) => c.cve_id === 'CVE-2023-28252')!;
    // No KEV catalog is imported here: the CVE record's own KEV marker does not flag it (ADR 0092).
    assert.deepEqual(
      [clfs(old).status, clfs(old).range.source, clfs(old).known_exploited],
      ['affected', 'cve5', false],
    );
    assert.equal(clfs(patched).status, 'needs_review');
    assert.match(
      clfs(patched).reason,
      /^sources disagree: NVD CPE configuration states every version affected, CVE record states >= 10\.0\.0, < 10\.0\.17763\.4252 affected/,
    );
    const c = await correlate({ assets }, pro.auth, '/api/v1/assets/correlate-cves/check');
    assert.equal(c.statusCode, 200, c.body);
    assert.deepEqual(
      c.json().data.assets.map((a: { counts: unknown }) => a.counts),
      [old.counts, patched.counts],
    );
  });
});

// Source precedence by statement date through the stored range groups (docs/correlation.md §5): the real CVE record
// of CVE-2020-28400 (dateUpdated 2024-08-04, SIMATIC CFU PA "< V2.0.0") is newer than the CISA advisory
// ICSA-21-194-03 (2022-04-14, every version): V2.0.0 is not affected, V1.0.0 affected, and /check agrees.
describe('correlate-cves: a newer CVE record\'s range over an older advisory\'s "every version"', () => {
  let own: Awaited<ReturnType<typeof seedOrg>>;
  const correlate = (body: unknown, path = '/api/v1/assets/correlate-cves') =>
    t.app.inject({ method: 'POST', url: path, headers: own.auth, payload: body as object });
  before(async () => {
    await importPaths(
      t.store.db,
      [feedDir([fixture('csaf', 'icsa-21-194-03.json'), fixture('cve5', 'CVE-2020-28400.json')])],
      quiet,
    );
    own = await seedOrg(t.store, { tier: 'professional' });
  });

  test("the stored groups keep each record's date, and the record's range decides", async () => {
    const stated = await sql<{
      source: string;
      stated: string | null;
    }>`SELECT DISTINCT source, ranges->>'stated' AS stated FROM cve_ranges WHERE cve_id = 'CVE-2020-28400' ORDER BY source`.execute(
      t.store.db,
    );
    assert.deepEqual(stated.rows, [
      { source: 'csaf', stated: '2022-04-14T00:00:00.000Z' },
      { source: 'cve5', stated: '2024-08-04T16:33:59.218Z' },
    ]);
    const assets = [
      { asset_id: 'cfu-fixed', vendor: 'Siemens', product: 'SIMATIC CFU PA', version: 'V2.0.0' },
      { asset_id: 'cfu-old', vendor: 'Siemens', product: 'SIMATIC CFU PA', version: 'V1.0.0' },
    ];
    const r = await correlate({ assets, options: { include_not_affected: true } });
    assert.equal(r.statusCode, 200, r.body);
    type Cve = { cve_id: string; status: string; reason: string };
    const of = (a: { cves: Cve[] }) => a.cves.find((c) => c.cve_id === 'CVE-2020-28400')!;
    const [fixed, old] = r.json().data.assets;
    assert.equal(of(fixed).status, 'not_affected');
    assert.match(
      of(fixed).reason,
      /\(CVE record, stated 2024-08-04\), which is newer than CISA advisory ICSA-21-194-03 \(2022-04-14\) stating every version affected: the CVE record's range wins$/,
    );
    assert.equal(of(old).status, 'affected');
    const c = await correlate({ assets }, '/api/v1/assets/correlate-cves/check');
    assert.equal(c.statusCode, 200, c.body);
    assert.deepEqual(
      c.json().data.assets.map((a: { counts: unknown }) => a.counts),
      [fixed.counts, old.counts],
    );
  });
});
