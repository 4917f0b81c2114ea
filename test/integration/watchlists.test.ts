// Watchlists, the product and protocol catalogs, and ranked=true over them (docs/watchlists.md).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { refreshProducts } from '../../src/store/watchlists.ts';
import { RANKED_WALK_FROM, rankedWalks } from '../../src/store/cve-ranked.ts';
import { catalogProductKey, cveProductKeys, productKey, WATCHLIST_MAX_ENTRIES } from '../../src/domain/watchlist.ts';
import { productPhrase } from '../../src/domain/title.ts';

let t: TestApp;
const siemens = { slug: 'siemens', name: 'Siemens' };
const moxa = { slug: 'moxa', name: 'Moxa' };
const acme = { slug: 'acme', name: 'Acme' };

const DOCS = [
  buildCve({
    id: 'CVE-2023-28489',
    cvss: 9.8,
    bcs: 9.8,
    vendors: [siemens],
    products: ['SICAM A8000', 'SICAM CP-8050'],
    protocols: ['modbus'],
    ics: 0.9,
  }),
  buildCve({
    id: 'CVE-2023-33235',
    cvss: 7.2,
    bcs: 7.2,
    vendors: [moxa],
    products: ['TN-5900'],
    protocols: ['ssh'],
    ics: 0.8,
  }),
  // Two vendors: only the primary pair (Siemens, Gateway) enters the product catalog.
  buildCve({
    id: 'CVE-2024-2229',
    cvss: 5.4,
    bcs: 5.4,
    vendors: [siemens, moxa],
    products: ['Gateway', 'TN-4900'],
    protocols: ['modbus'],
  }),
  buildCve({ id: 'CVE-2024-9124', cvss: 3.1, bcs: 3.1, vendors: [acme], products: ['Widget'] }),
  buildCve({
    id: 'CVE-2022-46361',
    cvss: 8.8,
    bcs: 9.5,
    vendors: [{ slug: 'honeywell', name: 'Honeywell' }],
    products: ['Experion'],
    protocols: ['dnp3'],
  }),
  buildCve({ id: 'CVE-2024-1111', cvss: 6.0, bcs: 6.0, vendors: [siemens], products: ['sicam a8000'] }),
];

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const r = await t.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.statusCode, body: r.json() };
}
const ids = (b: { data: { cve_id: string }[] }) => b.data.map((c) => c.cve_id);

before(async () => {
  t = await testApp();
  await seedCves(t.store, DOCS);
  await refreshProducts(t.store.db);
});
after(async () => {
  await t.close();
});

describe('catalog', () => {
  test('products: single-vendor CVEs pair every product, multi-vendor ones only the primary pair; spellings share a key', async () => {
    const r = await call('GET', '/api/v1/catalog/products');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.data.map((p: { id: string; cve_count: number }) => [p.id, p.cve_count]),
      [
        ['acme/widget', 1],
        ['honeywell/experion', 1],
        ['moxa/tn-5900', 1],
        ['siemens/gateway', 1],
        ['siemens/sicam-a8000', 2],
        ['siemens/sicam-cp-8050', 1],
      ],
    );
    const s = r.body.data.find((p: { id: string }) => p.id === 'siemens/sicam-a8000');
    assert.equal(s.vendor, 'Siemens');
    assert.equal(s.vendor_slug, 'siemens');
    assert.ok(['SICAM A8000', 'sicam a8000'].includes(s.name));
    assert.equal(r.body.pagination.total, 6);
  });

  test('products by vendor and q', async () => {
    const r = await call('GET', '/api/v1/catalog/products?vendor=siemens&q=sicam');
    assert.deepEqual(
      r.body.data.map((p: { id: string }) => p.id),
      ['siemens/sicam-a8000', 'siemens/sicam-cp-8050'],
    );
    const none = await call('GET', '/api/v1/catalog/products?vendor=nobody');
    assert.equal(none.status, 200);
    assert.equal(none.body.pagination.total, 0);
    const pct = await call('GET', '/api/v1/catalog/products?q=%25');
    assert.equal(pct.body.pagination.total, 0, 'a % in q is a literal, not a wildcard');
    const bad = await call('GET', '/api/v1/catalog/products?vendor=Not%20A%20Slug');
    assert.equal(bad.status, 422);
    assert.equal((await call('GET', '/api/v1/catalog/products?nope=1')).status, 400);
  });

  test('protocols: the ten names with exact counts; q narrows', async () => {
    const r = await call('GET', '/api/v1/catalog/protocols');
    assert.equal(r.status, 200);
    assert.equal(r.body.data.length, 10);
    const modbus = r.body.data.find((p: { id: string }) => p.id === 'modbus');
    assert.deepEqual(modbus, { id: 'modbus', name: 'Modbus', cve_count: 2 });
    assert.equal(r.body.data.find((p: { id: string }) => p.id === 'bacnet').cve_count, 0);
    const q = await call('GET', '/api/v1/catalog/protocols?q=ether');
    assert.deepEqual(
      q.body.data.map((p: { id: string }) => p.id),
      ['ethernet-ip'],
    );
  });

  test('productKey (TypeScript) equals vi_product_key (SQL) on generated names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), async (name) => {
        const r = await sql<{ k: string }>`SELECT vi_product_key(${name}) AS k`.execute(t.store.db);
        assert.equal(r.rows[0].k, productKey(name));
      }),
      { numRuns: 150 },
    );
    assert.equal(productKey('  SIMATIC S7-1500 (EOL) '), 'simatic-s7-1500-eol');
  });

  test('catalogProductKey (TypeScript) equals vi_catalog_product_key (SQL) on generated names and vendor slugs', async () => {
    // Names built from words that meet the rule's edges: the vendor's slug in front, "firmware" at the end.
    const word = fc.constantFrom(
      'acme',
      'acme-tools',
      'Acme',
      'firmware',
      'Firmware',
      'kernel',
      '-',
      ' ',
      '_',
      'x1',
      'é',
    );
    const slug = fc.constantFrom('acme', 'acme-tools', 'firmware', 'a', 'x1');
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { maxLength: 6 }).map((w) => w.join(' ')),
        slug,
        async (name, vendor) => {
          const r = await sql<{ k: string }>`SELECT vi_catalog_product_key(${name}, ${vendor}) AS k`.execute(
            t.store.db,
          );
          assert.equal(r.rows[0].k, catalogProductKey(name, vendor), `${vendor} / ${name}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('cveProductKeys (TypeScript) equals vi_cve_product_keys (SQL); the write path stores the ids in cve_product_keys', async () => {
    // Each vendor with each name, keyed under that vendor; distinct, in byte order; names without a key left out.
    const name = fc.constantFrom(
      'Acme Tools X1',
      'acme-tools x1 firmware',
      'X1',
      'x1_firmware',
      'Kernel',
      'é',
      '',
      'firmware',
      'Acme',
    );
    const slug = fc.constantFrom('acme', 'acme-tools', 'x1', 'b');
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(slug, { maxLength: 3 }),
        fc.array(name, { maxLength: 5 }),
        async (vendors, products) => {
          const r = await sql<{
            k: string[];
          }>`SELECT vi_cve_product_keys(${vendors}::text[], ${JSON.stringify(products)}::jsonb) AS k`.execute(
            t.store.db,
          );
          assert.deepEqual(r.rows[0].k, cveProductKeys(vendors, products), `${vendors} / ${products}`);
        },
      ),
      { numRuns: 200 },
    );
    assert.deepEqual(cveProductKeys(['acme-tools', 'b'], ['Acme Tools X1', 'x1 firmware', 'é']), [
      'acme-tools/x1',
      'b/acme-tools-x1',
      'b/x1',
    ]);
    // Every seeded document's ids are stored with it: its vendors' keys of its product names.
    const stored = await sql<{ cve_id: string; product_keys: string[] }>`
      SELECT c.cve_id, coalesce(k.keys, '{}') AS product_keys FROM cves c LEFT JOIN cve_product_keys k ON k.cve_id = c.cve_id
      WHERE c.cve_id = ANY(${DOCS.map((d) => d.cve_id)}::text[]) ORDER BY c.cve_id`.execute(t.store.db);
    assert.equal(stored.rows.length, DOCS.length);
    for (const row of stored.rows) {
      const d = DOCS.find((x) => x.cve_id === row.cve_id)!;
      assert.deepEqual(row.product_keys, cveProductKeys(d.affected.vendor_slugs, d.affected.products), row.cve_id);
    }
    assert.ok(stored.rows.some((x) => x.product_keys.includes('siemens/sicam-a8000')));
  });

  test('productPhrase (TypeScript) equals vi_product_phrase (SQL): a product that starts with its vendor is not prefixed again', async () => {
    const word = fc.constantFrom('Linux', 'linux', 'Kernel', 'Apache', 'Apache Tomcat', ' ', 'Linuxfoo', 'Ä');
    await fc.assert(
      fc.asyncProperty(
        word,
        fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
        async (vendor, product) => {
          const r = await sql<{ p: string }>`SELECT vi_product_phrase(${vendor}, ${product}) AS p`.execute(t.store.db);
          assert.equal(r.rows[0].p, productPhrase(vendor, product), `${vendor} / ${product}`);
        },
      ),
      { numRuns: 150 },
    );
    assert.equal(productPhrase('Linux', 'Linux Kernel'), 'Linux Kernel');
    assert.equal(productPhrase('Siemens', 'SICAM A8000'), 'Siemens SICAM A8000');
  });
});

describe('watchlist', () => {
  test('add each entity type, list, watching twice is 409 already_watching, remove', async () => {
    const o = await seedOrg(t.store, { name: 'Watcher' });
    const add = (entity_type: string, entity_id: string) =>
      call('POST', '/api/v1/watchlist', o.auth, { entity_type, entity_id });
    const v = await add('vendor', 'moxa');
    assert.equal(v.status, 201);
    assert.equal(v.body.data.entity_type, 'vendor');
    assert.equal(v.body.data.entity_id, 'moxa');
    assert.equal(v.body.data.entity_name, 'Moxa');
    assert.ok(v.body.data.id >= 2 ** 48, 'random tenant id');
    const p = await add('product', 'siemens/sicam-a8000');
    assert.equal(p.status, 201);
    assert.match(p.body.data.entity_name, /^Siemens (SICAM A8000|sicam a8000)$/);
    assert.equal((await add('protocol', 'dnp3')).body.data.entity_name, 'DNP3');
    const c = await add('cve', 'cve-2024-9124');
    assert.equal(c.status, 201);
    assert.equal(c.body.data.entity_id, 'CVE-2024-9124', 'CVE ids are stored upper-case');
    assert.equal(c.body.data.entity_name, DOCS[3].title);

    const again = await add('cve', 'CVE-2024-9124');
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    assert.equal(again.body.error.detail.error, 'already_watching');
    assert.equal(again.body.error.detail.entry_id, c.body.data.id);
    assert.equal(typeof again.body.error.detail.entry_id, 'number', "an integer, as the entry's own id");
    assert.equal(again.body.error.action, 'fix_input');

    const list = await call('GET', '/api/v1/watchlist', o.auth);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((e: { entity_type: string; entity_id: string }) => `${e.entity_type}:${e.entity_id}`),
      ['vendor:moxa', 'product:siemens/sicam-a8000', 'protocol:dnp3', 'cve:CVE-2024-9124'],
    );
    const onlyCve = await call('GET', '/api/v1/watchlist?entity_type=cve', o.auth);
    assert.deepEqual(
      onlyCve.body.data.map((e: { id: number }) => e.id),
      [c.body.data.id],
    );

    const del = await call('DELETE', `/api/v1/watchlist/${v.body.data.id}`, o.auth);
    assert.equal(del.status, 200);
    assert.equal(del.body.data.entity_id, 'moxa');
    const gone = await call('DELETE', `/api/v1/watchlist/${v.body.data.id}`, o.auth);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'NOT_FOUND');
    assert.equal(gone.body.error.message, 'No such watchlist entry in your organization');
    // entry_id has one type in every error: an integer, as the entry's `id` (the 409 above gives it so too).
    assert.deepEqual(gone.body.error.detail, { error: 'watchlist_entry_not_found', entry_id: v.body.data.id });
    assert.equal((await call('GET', '/api/v1/watchlist', o.auth)).body.pagination.total, 3);
    // Watching it again after removing it is allowed.
    assert.equal((await add('vendor', 'moxa')).status, 201);
  });

  test('spellings of one vendor, product or protocol are one entry under the catalog id, and match the same CVEs', async () => {
    const o = await seedOrg(t.store, { name: 'Spellings' });
    const add = (entity_type: string, entity_id: string) =>
      call('POST', '/api/v1/watchlist', o.auth, { entity_type, entity_id });
    const firsts: [string, string, string, string][] = [
      ['vendor', 'SIEMENS AG', 'siemens', 'Siemens'],
      ['product', 'Siemens/SICAM A8000', 'siemens/sicam-a8000', ''],
      ['protocol', 'Modbus', 'modbus', 'Modbus'],
      ['protocol', 'EtherNet/IP', 'ethernet-ip', 'EtherNet/IP'],
    ];
    const entryIds = new Map<string, number>();
    for (const [type, spelled, id, name] of firsts) {
      const r = await add(type, spelled);
      assert.equal(r.status, 201, `${spelled}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.data.entity_id, id, 'stored and shown under the catalog id');
      if (name) assert.equal(r.body.data.entity_name, name, "named by the catalog's name");
      entryIds.set(id, r.body.data.id);
    }
    const others: [string, string, string][] = [
      ['vendor', 'siemens', 'siemens'],
      ['vendor', 'Siemens', 'siemens'],
      ['vendor', ' siemens_ag ', 'siemens'],
      ['product', 'siemens/sicam-a8000', 'siemens/sicam-a8000'],
      ['product', 'SIEMENS/sicam_a8000', 'siemens/sicam-a8000'],
      ['protocol', 'MODBUS', 'modbus'],
      ['protocol', 'ethernet_ip', 'ethernet-ip'],
    ];
    for (const [type, spelled, id] of others) {
      const r = await add(type, spelled);
      assert.equal(r.status, 409, spelled);
      assert.equal(r.body.error.code, 'CONFLICT');
      assert.deepEqual(r.body.error.detail, { error: 'already_watching', entry_id: entryIds.get(id) }, spelled);
    }
    const stored = await sql<{
      entity_key: string;
    }>`SELECT entity_key FROM watchlist_entries WHERE org_id = ${o.orgId} ORDER BY entity_key`.execute(t.store.db);
    assert.deepEqual(
      stored.rows.map((r) => r.entity_key),
      ['ethernet-ip', 'modbus', 'siemens', 'siemens/sicam-a8000'],
    );
    // The same CVEs rank first as for an organization that used the catalog ids.
    const c = await seedOrg(t.store, { name: 'Catalog ids' });
    for (const [type, id] of [
      ['vendor', 'siemens'],
      ['product', 'siemens/sicam-a8000'],
      ['protocol', 'modbus'],
      ['protocol', 'ethernet-ip'],
    ]) {
      assert.equal((await call('POST', '/api/v1/watchlist', c.auth, { entity_type: type, entity_id: id })).status, 201);
    }
    const spelledRank = ids((await call('GET', '/api/v1/cves?ranked=true&per_page=100', o.auth)).body);
    assert.deepEqual(spelledRank, ids((await call('GET', '/api/v1/cves?ranked=true&per_page=100', c.auth)).body));
    assert.deepEqual(spelledRank.slice(0, 3), ['CVE-2023-28489', 'CVE-2024-1111', 'CVE-2024-2229']);
  });

  test('ids must come from the catalogs: 422 naming body.entity_id', async () => {
    const o = await seedOrg(t.store);
    const cases: [string, string, string][] = [
      ['vendor', 'no-such-vendor', 'value_error.not_in_catalog'],
      ['vendor', 'No Such Vendor Inc.', 'value_error.not_in_catalog'],
      ['vendor', 'n/a', 'value_error.invalid_id'],
      ['product', 'siemens/no-such-product', 'value_error.not_in_catalog'],
      ['product', 'siemens', 'value_error.invalid_id'],
      ['product', 'siemens/---', 'value_error.invalid_id'],
      ['product', 'moxa/gateway', 'value_error.not_in_catalog'],
      ['protocol', 'smtp', 'value_error.invalid_id'],
      ['cve', 'CVE-2099-99999', 'value_error.not_in_catalog'],
      ['cve', 'CVE-99', 'value_error.invalid_id'],
    ];
    for (const [entity_type, entity_id, type] of cases) {
      const r = await call('POST', '/api/v1/watchlist', o.auth, { entity_type, entity_id });
      assert.equal(r.status, 422, `${entity_type} ${entity_id}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        r.body.error.detail.map((d: { field: string; type: string }) => [d.field, d.type]),
        [['body.entity_id', type]],
        `${entity_type} ${entity_id}`,
      );
    }
    const badType = await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'environment', entity_id: 'x' });
    assert.equal(badType.status, 422);
    const extra = await call('POST', '/api/v1/watchlist', o.auth, {
      entity_type: 'vendor',
      entity_id: 'moxa',
      note: 'x',
    });
    assert.equal(extra.status, 422);
    assert.equal((await call('GET', '/api/v1/watchlist', o.auth)).body.pagination.total, 0, 'nothing stored');
  });

  test(`at most ${WATCHLIST_MAX_ENTRIES} entries: the next is 403 limit_reached`, async () => {
    const o = await seedOrg(t.store);
    await sql`INSERT INTO watchlist_entries (org_id, entity_type, entity_key)
      SELECT ${o.orgId}, 'cve', 'CVE-2000-' || lpad(g::text, 5, '0') FROM generate_series(1, ${WATCHLIST_MAX_ENTRIES}) g`.execute(
      t.store.db,
    );
    const r = await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'vendor', entity_id: 'moxa' });
    assert.equal(r.status, 403);
    assert.equal(r.body.error.detail.error, 'limit_reached');
    assert.equal(r.body.error.max, WATCHLIST_MAX_ENTRIES);
  });

  test('an entity already watched on a full list: 409 already_watching with its entry, not 403 limit_reached', async () => {
    // Checked before the duplicate, the bound would tell a retried add of a watched entity that the list is full.
    const o = await seedOrg(t.store);
    await sql`INSERT INTO watchlist_entries (org_id, entity_type, entity_key)
      SELECT ${o.orgId}, 'cve', 'CVE-2000-' || lpad(g::text, 5, '0') FROM generate_series(1, ${WATCHLIST_MAX_ENTRIES - 1}) g`.execute(
      t.store.db,
    );
    const first = await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'protocol', entity_id: 'modbus' });
    assert.equal(first.status, 201);
    const again = await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'protocol', entity_id: 'modbus' });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.deepEqual(
      [again.body.error.detail.error, again.body.error.detail.entry_id],
      ['already_watching', first.body.data.id],
    );
    const other = await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'protocol', entity_id: 'dnp3' });
    assert.deepEqual([other.status, other.body.error.detail.error], [403, 'limit_reached']);
  });

  test(`the bound holds under concurrency: 20 parallel adds at ${WATCHLIST_MAX_ENTRIES - 5} entries store exactly 5`, async () => {
    const o = await seedOrg(t.store);
    await sql`INSERT INTO watchlist_entries (org_id, entity_type, entity_key)
      SELECT ${o.orgId}, 'cve', 'CVE-2000-' || lpad(g::text, 5, '0') FROM generate_series(1, ${WATCHLIST_MAX_ENTRIES - 5}) g`.execute(
      t.store.db,
    );
    // Twenty distinct entries the catalog holds: the ten protocols, then vendors and CVEs of this corpus.
    const protocols = [
      'modbus',
      'dnp3',
      'opc-ua',
      'iec-61850',
      'profinet',
      'ethernet-ip',
      'bacnet',
      'ssh',
      'http',
      'ftp',
    ].map((id) => ({ entity_type: 'protocol', entity_id: id }));
    const vendors = (await sql<{ slug: string }>`SELECT slug FROM vendors ORDER BY slug`.execute(t.store.db)).rows.map(
      (r) => ({ entity_type: 'vendor', entity_id: r.slug }),
    );
    const cves = (await sql<{ cve_id: string }>`SELECT cve_id FROM cves ORDER BY cve_id`.execute(t.store.db)).rows.map(
      (r) => ({ entity_type: 'cve', entity_id: r.cve_id }),
    );
    const bodies = [...protocols, ...vendors, ...cves].slice(0, 20);
    assert.equal(bodies.length, 20);
    const answers = await Promise.all(bodies.map((b) => call('POST', '/api/v1/watchlist', o.auth, b)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(5).fill(201), ...Array(15).fill(403)]);
    assert.ok(answers.filter((a) => a.status === 403).every((a) => a.body.error.detail.error === 'limit_reached'));
    const n = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM watchlist_entries WHERE org_id = ${o.orgId}`.execute(t.store.db);
    assert.equal(n.rows[0].n, WATCHLIST_MAX_ENTRIES);
  });

  test('per_page is clamped to the tier cap as on every collection: Free 10, paid 100 (watchlist and alerts)', async () => {
    const free = await seedOrg(t.store, { tier: 'free' });
    const paid = await seedOrg(t.store, { tier: 'standard' });
    for (const path of ['/api/v1/watchlist?per_page=50', '/api/v1/alerts?per_page=50']) {
      const f = await call('GET', path, free.auth);
      assert.equal(f.status, 200, path);
      assert.equal(f.body.pagination.per_page, 10, path);
      const p = await call('GET', path, paid.auth);
      assert.equal(p.body.pagination.per_page, 50, path);
    }
  });

  test('an empty body with a JSON content type is no body: a DELETE succeeds; a POST that needs a body is 422 naming it', async () => {
    const o = await seedOrg(t.store);
    const add = await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'protocol', entity_id: 'modbus' });
    assert.equal(add.status, 201);
    const json = { ...o.auth, 'content-type': 'application/json' };
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/watchlist/${add.body.data.id}`,
      headers: json,
      payload: '',
    });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal((await call('GET', '/api/v1/watchlist', o.auth)).body.pagination.total, 0);
    const post = await t.app.inject({ method: 'POST', url: '/api/v1/watchlist', headers: json, payload: '' });
    assert.equal(post.statusCode, 422, post.body);
    assert.equal(post.json().error.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      post.json().error.detail.map((d: { field: string }) => d.field),
      ['body'],
    );
  });

  test('writes need owner or admin and the write scope; viewers may read', async () => {
    const o = await seedOrg(t.store);
    const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const readOnly = await seedKey(t.store, o.orgId, null, { role: 'admin', scopes: ['read'] });
    const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    const body = { entity_type: 'protocol', entity_id: 'modbus' };
    const v = await call('POST', '/api/v1/watchlist', viewer.auth, body);
    assert.equal(v.status, 403);
    assert.equal(v.body.error.detail.error, 'viewer_role');
    const ro = await call('POST', '/api/v1/watchlist', readOnly.auth, body);
    assert.equal(ro.status, 403);
    assert.equal(ro.body.error.detail.error, 'insufficient_scope');
    const a = await call('POST', '/api/v1/watchlist', admin.auth, body);
    assert.equal(a.status, 201);
    assert.equal((await call('GET', '/api/v1/watchlist', viewer.auth)).body.data[0].entity_id, 'modbus');
    const vd = await call('DELETE', `/api/v1/watchlist/${a.body.data.id}`, viewer.auth);
    assert.equal(vd.status, 403);
    const anon = await call('GET', '/api/v1/watchlist');
    assert.equal(anon.status, 401);
    // A session write carries the public Origin.
    const s = await seedSession(t.store, o.orgId, o.memberId);
    const noOrigin = await call('POST', '/api/v1/watchlist', s, { entity_type: 'protocol', entity_id: 'ssh' });
    assert.equal(noOrigin.status, 403);
    const withOrigin = await call(
      'POST',
      '/api/v1/watchlist',
      { ...s, origin: new URL(t.config.publicUrl).origin },
      { entity_type: 'protocol', entity_id: 'ssh' },
    );
    assert.equal(withOrigin.status, 201);
  });

  test('two organizations each see and remove only their own entries', async () => {
    const a = await seedOrg(t.store, { name: 'Iso A' });
    const b = await seedOrg(t.store, { name: 'Iso B' });
    const ea = await call('POST', '/api/v1/watchlist', a.auth, { entity_type: 'vendor', entity_id: 'siemens' });
    const eb = await call('POST', '/api/v1/watchlist', b.auth, { entity_type: 'vendor', entity_id: 'siemens' });
    assert.equal(eb.status, 201, 'the same entity in another organization is no conflict');
    assert.deepEqual(
      (await call('GET', '/api/v1/watchlist', a.auth)).body.data.map((e: { id: number }) => e.id),
      [ea.body.data.id],
    );
    assert.deepEqual(
      (await call('GET', '/api/v1/watchlist', b.auth)).body.data.map((e: { id: number }) => e.id),
      [eb.body.data.id],
    );
    const cross = await call('DELETE', `/api/v1/watchlist/${eb.body.data.id}`, a.auth);
    assert.equal(cross.status, 404);
    assert.deepEqual(cross.body.error.detail, { error: 'watchlist_entry_not_found', entry_id: eb.body.data.id });
    assert.equal((await call('GET', '/api/v1/watchlist', b.auth)).body.pagination.total, 1);
  });
});

describe('ranked=true', () => {
  const base = '/api/v1/cves?ranked=true';
  const byBcs = [
    'CVE-2023-28489',
    'CVE-2022-46361',
    'CVE-2023-33235',
    'CVE-2024-1111',
    'CVE-2024-2229',
    'CVE-2024-9124',
  ];

  test('a watched product: the CVEs naming it (with its vendor), any spelling, first; then by BCS', async () => {
    const o = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'product', entity_id: 'siemens/sicam-a8000' });
    const r = await call('GET', base, o.auth);
    assert.deepEqual(ids(r.body), [
      'CVE-2023-28489',
      'CVE-2024-1111',
      'CVE-2022-46361',
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
    ]);
  });

  test('a watched CVE and a watched protocol', async () => {
    const o = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'cve', entity_id: 'CVE-2024-9124' });
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'protocol', entity_id: 'ssh' });
    const r = await call('GET', base, o.auth);
    assert.deepEqual(ids(r.body), [
      'CVE-2023-33235',
      'CVE-2024-9124',
      'CVE-2023-28489',
      'CVE-2022-46361',
      'CVE-2024-1111',
      'CVE-2024-2229',
    ]);
  });

  test('pages: the CVEs of interest, then the rest, joined at any page boundary; totals and filters as unranked', async () => {
    const o = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'vendor', entity_id: 'siemens' });
    const all = [
      'CVE-2023-28489',
      'CVE-2024-1111',
      'CVE-2024-2229',
      'CVE-2022-46361',
      'CVE-2023-33235',
      'CVE-2024-9124',
    ];
    const whole = await call('GET', `${base}&per_page=100`, o.auth);
    assert.deepEqual(ids(whole.body), all);
    // Three CVEs of interest: pages of 2 straddle the boundary, pages of 1 meet it exactly, and past the end is empty.
    for (const [perPage, page] of [
      [2, 1],
      [2, 2],
      [2, 3],
      [2, 4],
      [1, 3],
      [1, 4],
      [4, 2],
      [5, 1],
    ]) {
      const r = await call('GET', `${base}&per_page=${perPage}&page=${page}`, o.auth);
      assert.equal(r.status, 200);
      assert.deepEqual(
        ids(r.body),
        all.slice((page - 1) * perPage, page * perPage),
        `per_page=${perPage} page=${page}`,
      );
      assert.equal(r.body.pagination.total, 6);
    }
    // Filters apply to both parts (CVE-2024-9124 has CVSS 3.1); the total is the filtered one.
    const f = await call('GET', `${base}&cvss_min=5&per_page=2&page=2`, o.auth);
    assert.deepEqual(ids(f.body), ['CVE-2024-2229', 'CVE-2022-46361']);
    assert.equal(f.body.pagination.total, 5);
    // A filter no CVE of interest passes: the rest alone, by BCS.
    const h = await call('GET', `${base}&vendor=honeywell`, o.auth);
    assert.deepEqual(ids(h.body), ['CVE-2022-46361']);
  });

  test('a large watchlist walks the BCS index instead of collecting its CVEs: the same pages', async () => {
    const o = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'vendor', entity_id: 'moxa' });
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'cve', entity_id: 'CVE-2024-9124' });
    const expected = [
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
      'CVE-2023-28489',
      'CVE-2022-46361',
      'CVE-2024-1111',
    ];
    const pages = async () => {
      const out: string[][] = [];
      for (const [perPage, page] of [
        [6, 1],
        [2, 1],
        [2, 2],
        [2, 3],
        [1, 3],
        [1, 4],
        [4, 2],
        [2, 4],
      ]) {
        out.push(ids((await call('GET', `${base}&per_page=${perPage}&page=${page}`, o.auth)).body));
      }
      return out;
    };
    const collected = await pages();
    assert.deepEqual(collected[0], expected);
    // The estimate reads the vendor's facet counts: made large, the first part is read by the walk.
    const bump = (n: number) =>
      sql`UPDATE cve_facet_counts SET n = n + ${n} WHERE scope = 'vendor' AND key = 'moxa'
      AND ctid = (SELECT ctid FROM cve_facet_counts WHERE scope = 'vendor' AND key = 'moxa' LIMIT 1)`.execute(
        t.store.db,
      );
    await bump(RANKED_WALK_FROM);
    try {
      assert.deepEqual(await pages(), collected);
    } finally {
      await bump(-RANKED_WALK_FROM);
    }
    assert.deepEqual(collected.slice(1), [
      expected.slice(0, 2),
      expected.slice(2, 4),
      expected.slice(4, 6),
      [expected[2]],
      [expected[3]],
      expected.slice(4, 6),
      [],
    ]);
  });

  test('a deep page of a large watchlist collects its CVEs instead of walking the whole BCS index: the same pages', async () => {
    // The walk reads about (offset + limit) × corpus / estimate rows: on the 367k corpus with 9,000 CVEs of interest,
    // the last pages of interest walked the whole table (1.0 s) where collecting them took 0.1 s.
    assert.equal(rankedWalks(9000, 367_000, 0, 100), true);
    assert.equal(rankedWalks(9000, 367_000, 9200, 100), false);
    assert.equal(rankedWalks(RANKED_WALK_FROM - 1, 10, 0, 1), false);
    const o = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'vendor', entity_id: 'moxa' });
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'cve', entity_id: 'CVE-2024-9124' });
    const expected = [
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
      'CVE-2023-28489',
      'CVE-2022-46361',
      'CVE-2024-1111',
    ];
    const cases = [
      [2, 1],
      [2, 2],
      [2, 3],
      [1, 3],
      [1, 4],
      [4, 2],
      [2, 4],
      [6, 1],
      [3, 2],
    ];
    const pages = async () => {
      const out: string[][] = [];
      for (const [perPage, page] of cases)
        out.push(ids((await call('GET', `${base}&per_page=${perPage}&page=${page}`, o.auth)).body));
      return out;
    };
    const want = cases.map(([perPage, page]) => expected.slice((page - 1) * perPage, page * perPage));
    assert.deepEqual(await pages(), want);
    // Estimate and corpus made large (facet counts): the first pages walk, the deeper ones collect.
    const bump = (scope: string, key: string, n: number) =>
      sql`UPDATE cve_facet_counts SET n = n + ${n}
      WHERE ctid = (SELECT ctid FROM cve_facet_counts WHERE scope = ${scope} AND key = ${key} LIMIT 1)`.execute(
        t.store.db,
      );
    const read = async () =>
      (
        await sql<{ e: number; c: number }>`SELECT
      (SELECT sum(n) FROM cve_facet_counts WHERE scope = 'vendor' AND key = 'moxa')::int + 1 AS e,
      (SELECT sum(n) FROM cve_facet_counts WHERE scope = 'all')::int AS c`.execute(t.store.db)
      ).rows[0];
    await bump('vendor', 'moxa', RANKED_WALK_FROM);
    const { e } = await read();
    const corpusBump = Math.floor((e * e) / 5) - (await read()).c;
    await bump('all', '', corpusBump);
    try {
      const { c } = await read();
      const walks = cases.map(([perPage, page]) => rankedWalks(e, c, (page - 1) * perPage, perPage));
      assert.ok(walks.includes(true) && walks.includes(false), `both reads exercised: ${walks.join(',')}`);
      assert.deepEqual(await pages(), want);
    } finally {
      await bump('all', '', -corpusBump);
      await bump('vendor', 'moxa', -RANKED_WALK_FROM);
    }
  });

  test('with a search text: the matches of interest first, then the other matches by BCS', async () => {
    const o = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'product', entity_id: 'siemens/gateway' });
    const r = await call('GET', `${base}&q=siemens`, o.auth);
    assert.deepEqual(ids(r.body), ['CVE-2024-2229', 'CVE-2023-28489', 'CVE-2024-1111']);
    assert.equal(r.body.pagination.total, 3);
  });

  test("another organization's watchlist changes nothing; an empty one ranks by BCS", async () => {
    const a = await seedOrg(t.store);
    const b = await seedOrg(t.store);
    await call('POST', '/api/v1/watchlist', b.auth, { entity_type: 'vendor', entity_id: 'acme' });
    assert.deepEqual(ids((await call('GET', base, a.auth)).body), byBcs);
    const rb = await call('GET', base, b.auth);
    assert.deepEqual(ids(rb.body), ['CVE-2024-9124', ...byBcs.filter((x) => x !== 'CVE-2024-9124')]);
  });
});

describe('ranked=true with stored assets', () => {
  const base = '/api/v1/cves?ranked=true';
  test('CVEs affecting a stored v1 asset or open on a stored Windows host come first, with the watched ones; not_affected does not count', async () => {
    const o = await seedOrg(t.store);
    const other = await seedOrg(t.store);
    const env = await t.app.services.environments.create(o.orgId, { name: 'Line A' });
    const envId = env.id;
    const v1 = (cves: { cve_id: string; status: string }[]) => JSON.stringify({ asset_id: 'plc-1', cves });
    await sql`INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
      VALUES (${o.orgId}, ${envId}, 'plc-1', '{}'::jsonb, ${v1([
        { cve_id: 'CVE-2024-2229', status: 'affected' },
        { cve_id: 'CVE-2023-28489', status: 'not_affected' },
      ])}::jsonb, 'req-1')`.execute(t.store.db);
    await sql`INSERT INTO windows_host_results (org_id, environment_id, asset_id, host, result, evaluated_on)
      VALUES (${o.orgId}, ${envId}, 'win-1', '{}'::jsonb, ${JSON.stringify({ fix_groups: [{ fix: 'KB1', cve_ids: ['CVE-2024-9124'] }] })}::jsonb, '2026-07-10')`.execute(
      t.store.db,
    );
    await call('POST', '/api/v1/watchlist', o.auth, { entity_type: 'cve', entity_id: 'CVE-2022-46361' });
    const r = await call('GET', base, o.auth);
    // Of interest (by BCS): the watched CVE, the v1 match, the Windows one; then the rest by BCS.
    assert.deepEqual(ids(r.body), [
      'CVE-2022-46361',
      'CVE-2024-2229',
      'CVE-2024-9124',
      'CVE-2023-28489',
      'CVE-2023-33235',
      'CVE-2024-1111',
    ]);
    // Another organization's assets change nothing for it.
    const ro = await call('GET', base, other.auth);
    assert.deepEqual(ids(ro.body), [
      'CVE-2023-28489',
      'CVE-2022-46361',
      'CVE-2023-33235',
      'CVE-2024-1111',
      'CVE-2024-2229',
      'CVE-2024-9124',
    ]);
    // A stored result entry without a CVE id (or a null in a fix group) hides no CVE from the rest of the list.
    await sql`INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
      VALUES (${o.orgId}, ${envId}, 'plc-2', '{}'::jsonb, ${JSON.stringify({ asset_id: 'plc-2', cves: [{ status: 'affected' }] })}::jsonb, 'req-2')`.execute(
      t.store.db,
    );
    await sql`INSERT INTO windows_host_results (org_id, environment_id, asset_id, host, result, evaluated_on)
      VALUES (${o.orgId}, ${envId}, 'win-2', '{}'::jsonb, ${JSON.stringify({ fix_groups: [{ fix: 'KB2', cve_ids: [null] }] })}::jsonb, '2026-07-10')`.execute(
      t.store.db,
    );
    const again = await call('GET', `${base}&per_page=2&page=2`, o.auth);
    assert.deepEqual(ids(again.body), ['CVE-2024-9124', 'CVE-2023-28489']);
    assert.equal(again.body.pagination.total, 6);
  });
});

describe('product catalog spellings', () => {
  test('the display name is the spelling most CVEs use, ties to the first in byte order; cve_count counts CVEs, whatever their spellings', async () => {
    const spell = { slug: 'spellco', name: 'Spellco' };
    await seedCves(t.store, [
      buildCve({ id: 'CVE-2025-50001', vendors: [spell], products: ['Foo Bar', 'Baz'] }),
      buildCve({ id: 'CVE-2025-50002', vendors: [spell], products: ['foo-bar', 'baz'] }),
      buildCve({ id: 'CVE-2025-50003', vendors: [spell], products: ['Foo Bar'] }),
      buildCve({ id: 'CVE-2025-50004', vendors: [spell], products: ['FOO BAR'] }),
    ]);
    await refreshProducts(t.store.db);
    const r = await call('GET', '/api/v1/catalog/products?vendor=spellco');
    assert.deepEqual(
      r.body.data.map((p: { id: string; name: string; cve_count: number }) => [p.id, p.name, p.cve_count]),
      [
        ['spellco/baz', 'Baz', 2],
        ['spellco/foo-bar', 'Foo Bar', 4],
      ],
    );
    // A spelling that becomes the most used takes over the name.
    await seedCves(t.store, [buildCve({ id: 'CVE-2025-50005', vendors: [spell], products: ['baz'] })]);
    await refreshProducts(t.store.db);
    const again = await call('GET', '/api/v1/catalog/products?vendor=spellco&q=baz');
    assert.deepEqual(
      again.body.data.map((p: { name: string; cve_count: number }) => [p.name, p.cve_count]),
      [['baz', 3]],
    );
    // A CVE naming two spellings of one product counts once (the snapshot's Phoenix Contact CHARX SEC-3150 was
    // counted 36 times for its 20 CVEs).
    await seedCves(t.store, [
      buildCve({ id: 'CVE-2025-50006', vendors: [spell], products: ['CHARX SEC-3150', 'charx sec 3150'] }),
      buildCve({ id: 'CVE-2025-50007', vendors: [spell], products: ['charx sec 3150'] }),
    ]);
    await refreshProducts(t.store.db);
    const charx = await call('GET', '/api/v1/catalog/products?vendor=spellco&q=charx');
    assert.deepEqual(
      charx.body.data.map((p: { id: string; name: string; cve_count: number }) => [p.id, p.name, p.cve_count]),
      [['spellco/charx-sec-3150', 'charx sec 3150', 2]],
    );
  });
});
