// Product catalog keys (docs/watchlists.md "Product catalog"; migration 1170): sources spell one product with and
// without the vendor in front ("Linux Kernel" / "kernel") and with and without "firmware" (DAP-2622 /
// dap-2622_firmware); the catalog keys them as one product, and a watch on it matches every spelling, in the ranked
// list and in the alert run. Entries stored under the former keys move with the migration.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { refreshProducts } from '../../src/store/watchlists.ts';
import { watchHits } from '../../src/store/alert-matching.ts';
import { migrate } from '../../src/store/migrate.ts';
import { deleteCves } from '../../src/store/ingest.ts';
import { cveProductKeys, PRODUCT_PAIRS_MAX } from '../../src/domain/watchlist.ts';

let t: TestApp;
const linux = { slug: 'linux', name: 'Linux' };
const dlink = { slug: 'dlink', name: 'D-Link' };
const DOCS = [
  buildCve({ id: 'CVE-2024-26581', bcs: 5, vendors: [linux], products: ['Linux Kernel'] }),
  buildCve({ id: 'CVE-2024-26582', bcs: 4, vendors: [linux], products: ['kernel'] }),
  buildCve({ id: 'CVE-2024-26583', bcs: 9, vendors: [linux], products: ['Linux Kernel', 'kernel'] }),
  buildCve({ id: 'CVE-2024-7357', bcs: 6, vendors: [dlink], products: ['DAP-2622'] }),
  buildCve({ id: 'CVE-2024-7358', bcs: 3, vendors: [dlink], products: ['dap-2622_firmware'] }),
  buildCve({ id: 'CVE-2024-9999', bcs: 8, vendors: [dlink], products: ['DIR-600'] }),
];

before(async () => {
  t = await testApp();
  await seedCves(t.store, DOCS);
  await refreshProducts(t.store.db);
});
after(async () => {
  await t.close();
});

async function get(url: string, auth: { authorization: string }) {
  const r = await t.app.inject({ method: 'GET', url, headers: auth });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

test('the catalog keys each product once: without the vendor in front, without "firmware"; CVEs counted once', async () => {
  const o = await seedOrg(t.store);
  const r = await get('/api/v1/catalog/products', o.auth);
  assert.deepEqual(
    r.data.map((p: { id: string; name: string; cve_count: number }) => [p.id, p.name, p.cve_count]),
    [
      ['dlink/dap-2622', 'DAP-2622', 2],
      ['dlink/dir-600', 'DIR-600', 1],
      // "Linux Kernel" and "kernel" are each named by 2 CVEs: the first in byte order names it.
      ['linux/kernel', 'Linux Kernel', 3],
    ],
  );
});

test('a watched product ranks every spelling of it first, and the alert run finds each', async () => {
  const o = await seedOrg(t.store);
  const add = await t.app.inject({
    method: 'POST',
    url: '/api/v1/watchlist',
    headers: o.auth,
    payload: { entity_type: 'product', entity_id: 'linux/kernel' },
  });
  assert.equal(add.statusCode, 201, add.body);
  assert.equal(add.json().data.entity_name, 'Linux Kernel');
  const ranked = await get('/api/v1/cves?ranked=true', o.auth);
  assert.deepEqual(
    ranked.data.map((c: { cve_id: string }) => c.cve_id),
    ['CVE-2024-26583', 'CVE-2024-26581', 'CVE-2024-26582', 'CVE-2024-9999', 'CVE-2024-7357', 'CVE-2024-7358'],
  );
  const hits = (
    await watchHits(
      t.store.db,
      DOCS.map((d) => d.cve_id),
    )
  ).filter((h) => h.org_id === o.orgId);
  assert.deepEqual(
    hits.map((h) => [h.cve_id, h.entity_key, h.entity_name]),
    [
      ['CVE-2024-26581', 'linux/kernel', 'Linux Kernel'],
      ['CVE-2024-26582', 'linux/kernel', 'Linux Kernel'],
      ['CVE-2024-26583', 'linux/kernel', 'Linux Kernel'],
    ],
  );
});

test('a CVE past PRODUCT_PAIRS_MAX vendor × product pairs is stored compact, and matches the same watches in the ranked list and the alert run', async () => {
  // The shape of CVE-2022-4974 (the Freemius SDK: 377 vendors, 620 plugins), smaller: 3 vendors, 400 names.
  const vendors = [{ slug: 'wpplugins', name: 'WP Plugins' }, { slug: 'freemius', name: 'Freemius' }, linux];
  const products = ['Linux Kernel', ...Array.from({ length: 399 }, (_, i) => `Plugin ${i}`)];
  const big = buildCve({ id: 'CVE-2022-4974', bcs: 1, vendors, products });
  await seedCves(t.store, [big]);
  try {
    const keys = (
      await sql<{ keys: string[] }>`SELECT keys FROM cve_product_keys WHERE cve_id = 'CVE-2022-4974'`.execute(
        t.store.db,
      )
    ).rows[0].keys;
    assert.ok(3 * products.length > PRODUCT_PAIRS_MAX);
    assert.equal(keys.length, 399 + 3 + 3, 'each plugin once, the kernel per vendor, each vendor alone');
    assert.deepEqual(keys, cveProductKeys(big.affected.vendor_slugs, big.affected.products));
    const r = await sql<{
      k: string[];
    }>`SELECT vi_cve_product_keys(${big.affected.vendor_slugs}::text[], ${JSON.stringify(products)}::jsonb) AS k`.execute(
      t.store.db,
    );
    assert.deepEqual(r.rows[0].k, keys, 'the SQL twin makes the compact form too');
    // And draws the bound where the import does: 2 vendors × 500 names paired, × 501 compact.
    for (const k of [500, 501]) {
      const names = Array.from({ length: k }, (_, i) => `Plugin ${i}`);
      const twin = await sql<{
        k: string[];
      }>`SELECT vi_cve_product_keys(${['a', 'b']}::text[], ${JSON.stringify(names)}::jsonb) AS k`.execute(t.store.db);
      assert.deepEqual(twin.rows[0].k, cveProductKeys(['a', 'b'], names), `${k} names`);
      assert.equal(twin.rows[0].k.includes('a/'), k === 501);
    }
    // Watches on a plugin under each of the CVE's vendors find it; under another vendor, or a name it does not carry,
    // they do not; the kernel under linux (a name with its vendor in front) does.
    for (const [entity, found] of [
      ['freemius/plugin-7', true],
      ['wpplugins/plugin-398', true],
      ['dlink/plugin-7', false],
      ['freemius/plugin-400', false],
      ['linux/kernel', true],
    ] as const) {
      const o = await seedOrg(t.store);
      const add = await t.app.inject({
        method: 'POST',
        url: '/api/v1/watchlist',
        headers: o.auth,
        payload: { entity_type: 'product', entity_id: entity },
      });
      if (add.statusCode !== 201) {
        // A product the catalog does not hold cannot be watched (the plugins of a many-vendor CVE are not in it):
        // the watch is stored directly, as an entry made before the catalog changed would be.
        await sql`INSERT INTO watchlist_entries (org_id, entity_type, entity_key) VALUES (${o.orgId}, 'product', ${entity})`.execute(
          t.store.db,
        );
      }
      const ranked = (await get('/api/v1/cves?ranked=true&per_page=5', o.auth)).data.map(
        (c: { cve_id: string }) => c.cve_id,
      );
      assert.equal(
        ranked.includes('CVE-2022-4974') && ranked.indexOf('CVE-2022-4974') < (entity === 'linux/kernel' ? 4 : 1),
        found,
        `${entity}: ${ranked}`,
      );
      const hits = (await watchHits(t.store.db, ['CVE-2022-4974'])).filter((h) => h.org_id === o.orgId);
      assert.deepEqual(
        hits.map((h) => [h.cve_id, h.entity_key]),
        found ? [['CVE-2022-4974', entity]] : [],
        entity,
      );
    }
  } finally {
    await deleteCves(t.store.db, ['CVE-2022-4974']);
  }
});

test('POST /api/v1/watchlist with a former product id stores it under the catalog id', async () => {
  const o = await seedOrg(t.store);
  const post = (entity_id: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/watchlist',
      headers: o.auth,
      payload: { entity_type: 'product', entity_id },
    });
  const r = await post('dlink/dap-2622-firmware');
  assert.equal(r.statusCode, 201, r.body);
  assert.equal(r.json().data.entity_id, 'dlink/dap-2622');
  const again = await post('dlink/dap-2622');
  assert.equal(again.statusCode, 409);
  assert.deepEqual(again.json().error.detail, { error: 'already_watching', entry_id: r.json().data.id });
  assert.equal((await post('linux/linux-kernel')).json().data.entity_id, 'linux/kernel');
  // A product no spelling rule leads to stays refused, naming the catalog.
  const none = await post('dlink/dir-700');
  assert.equal(none.statusCode, 422);
  assert.match(JSON.stringify(none.json().error.detail), /dlink\/dir-700 is not in the product catalog/);
});

test('migration 1170 moves stored product entries to the new keys; an organization watching two spellings keeps its oldest', async () => {
  const a = await seedOrg(t.store);
  const b = await seedOrg(t.store);
  // As stored before migration 1170.
  await sql`DROP FUNCTION vi_refresh_products(); DROP FUNCTION vi_catalog_product_key(text, text); DROP FUNCTION vi_product_phrase(text, text)`.execute(
    t.store.db,
  );
  await sql`DELETE FROM schema_migrations WHERE version = '1170'`.execute(t.store.db);
  const insert = async (orgId: number, type: string, key: string) =>
    (
      await sql<{ id: string }>`INSERT INTO watchlist_entries (org_id, entity_type, entity_key)
    VALUES (${orgId}, ${type}, ${key}) RETURNING id::text`.execute(t.store.db)
    ).rows[0].id;
  const oldest = await insert(a.orgId, 'product', 'linux/linux-kernel');
  await insert(a.orgId, 'product', 'linux/kernel');
  await insert(a.orgId, 'product', 'dlink/dap-2622-firmware');
  await insert(a.orgId, 'vendor', 'linux');
  await insert(b.orgId, 'product', 'linux/linux-kernel');

  assert.deepEqual(await migrate(t.store.pool), ['1170_catalog_product_keys']);

  const keys = async (orgId: number) =>
    (
      await sql<{
        id: string;
        k: string;
      }>`SELECT id::text, entity_type || ' ' || entity_key AS k FROM watchlist_entries WHERE org_id = ${orgId} ORDER BY k`.execute(
        t.store.db,
      )
    ).rows;
  const ka = await keys(a.orgId);
  assert.deepEqual(
    ka.map((x) => x.k),
    ['product dlink/dap-2622', 'product linux/kernel', 'vendor linux'],
  );
  assert.equal(ka.find((x) => x.k === 'product linux/kernel')!.id, oldest);
  assert.deepEqual(
    (await keys(b.orgId)).map((x) => x.k),
    ['product linux/kernel'],
  );
  // The catalog is keyed the same way right after the migration.
  const p = await sql<{ id: string }>`SELECT vendor_slug || '/' || product_key AS id FROM products ORDER BY 1`.execute(
    t.store.db,
  );
  assert.deepEqual(
    p.rows.map((x) => x.id),
    ['dlink/dap-2622', 'dlink/dir-600', 'linux/kernel'],
  );
});

test('cve_product_keys follows each written document: set, changed, removed with its products and with its CVE; migrations 1180 and 1280 fill it from a stored corpus', async () => {
  const stored = async () =>
    (
      await sql<{
        cve_id: string;
        keys: string[];
      }>`SELECT cve_id, keys FROM cve_product_keys WHERE cve_id LIKE 'CVE-2024-7%' OR cve_id LIKE 'CVE-2024-265%' ORDER BY cve_id`.execute(
        t.store.db,
      )
    ).rows;
  const expected = [
    { cve_id: 'CVE-2024-26581', keys: ['linux/kernel'] },
    { cve_id: 'CVE-2024-26582', keys: ['linux/kernel'] },
    { cve_id: 'CVE-2024-26583', keys: ['linux/kernel'] },
    { cve_id: 'CVE-2024-7357', keys: ['dlink/dap-2622'] },
    { cve_id: 'CVE-2024-7358', keys: ['dlink/dap-2622'] },
  ];
  assert.deepEqual(await stored(), expected);
  // As stored before migration 1180: the migrations compute the same rows from the documents.
  await sql`DROP TABLE cve_product_keys; DROP FUNCTION vi_cve_product_keys(text[], jsonb)`.execute(t.store.db);
  await sql`DELETE FROM schema_migrations WHERE version IN ('1180', '1280')`.execute(t.store.db);
  assert.deepEqual(await migrate(t.store.pool), ['1180_cve_product_keys', '1280_product_keys_by_name']);
  assert.deepEqual(await stored(), expected);

  const o = await seedOrg(t.store);
  const add = await t.app.inject({
    method: 'POST',
    url: '/api/v1/watchlist',
    headers: o.auth,
    payload: { entity_type: 'product', entity_id: 'dlink/dap-2622' },
  });
  assert.equal(add.statusCode, 201, add.body);
  const first = async () =>
    (await get('/api/v1/cves?ranked=true&per_page=2', o.auth)).data.map((c: { cve_id: string }) => c.cve_id);
  assert.deepEqual(await first(), ['CVE-2024-7357', 'CVE-2024-7358']);
  try {
    // A document that stops naming the product leaves the watch; one that starts naming it joins it.
    await seedCves(t.store, [
      buildCve({ id: 'CVE-2024-7357', bcs: 6, vendors: [dlink], products: [] }),
      buildCve({ id: 'CVE-2024-7358', bcs: 3, vendors: [dlink], products: ['DIR-600'] }),
      buildCve({ id: 'CVE-2024-9999', bcs: 8, vendors: [dlink], products: ['DIR-600', 'DAP-2622 Firmware'] }),
    ]);
    assert.deepEqual(
      (await stored()).filter((r) => r.cve_id.startsWith('CVE-2024-73')),
      [{ cve_id: 'CVE-2024-7358', keys: ['dlink/dir-600'] }],
    );
    assert.deepEqual(await first(), ['CVE-2024-9999', 'CVE-2024-26583']);
    // A CVE removed from the corpus takes its row with it.
    assert.equal(await deleteCves(t.store.db, ['CVE-2024-9999']), 1);
    assert.equal(
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM cve_product_keys WHERE cve_id = 'CVE-2024-9999'`.execute(t.store.db)
      ).rows[0].n,
      0,
    );
  } finally {
    await seedCves(
      t.store,
      DOCS.filter((d) => ['CVE-2024-7357', 'CVE-2024-7358', 'CVE-2024-9999'].includes(d.cve_id)),
    );
  }
});
