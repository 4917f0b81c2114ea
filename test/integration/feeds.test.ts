// Atom feeds (beyond the spec; docs/feeds.md): the public vendor feed and the watchlist feed behind a
// revocable token, over real imported data (the NVD fixtures as the baseline, then the CISA advisories, whose
// import records changes). The XML is parsed and checked entry by entry.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { createHash } from 'node:crypto';
import { xml2js, type Element } from 'xml-js';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';

let t: TestApp;
const quiet = { info() {}, warn() {} };
before(async () => {
  t = await testApp({ env: { VULNINTEL_PUBLIC_URL: 'https://vulnintel.test' } });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  await importPaths(t.store.db, [feedDir(CSAF_FIXTURES)], { log: quiet });
});
after(async () => {
  await t.close();
});

interface Entry {
  id: string;
  title: string;
  link: string;
  updated: string;
  summary: string;
}
function parse(xml: string): { feed: Record<string, string>; entries: Entry[] } {
  const doc = xml2js(xml) as Element;
  const root = doc.elements!.find((e) => e.name === 'feed')!;
  assert.equal(root.attributes?.xmlns, 'http://www.w3.org/2005/Atom');
  const text = (el: Element | undefined) => (el?.elements ?? []).map((x) => x.text ?? x.cdata ?? '').join('');
  const child = (el: Element, name: string) => el.elements?.find((x) => x.name === name);
  const feed = {
    id: text(child(root, 'id')),
    title: text(child(root, 'title')),
    updated: text(child(root, 'updated')),
  };
  const entries = (root.elements ?? [])
    .filter((e) => e.name === 'entry')
    .map((e) => ({
      id: text(child(e, 'id')),
      title: text(child(e, 'title')),
      link: String(child(e, 'link')?.attributes?.href ?? ''),
      updated: text(child(e, 'updated')),
      summary: text(child(e, 'summary')),
    }));
  return { feed, entries };
}

/** What the vendor feed must list, computed independently: the vendor's CVEs by newest change. */
async function expectedFor(slug: string): Promise<string[]> {
  const r = await sql<{ cve_id: string }>`SELECT c.cve_id FROM cves c JOIN cve_changes ch ON ch.cve_id = c.cve_id
    WHERE ${slug} = ANY(c.vendor_slugs) GROUP BY c.cve_id ORDER BY max(ch.seq) DESC LIMIT 50`.execute(t.store.db);
  return r.rows.map((x) => x.cve_id);
}

test("vendor feed: the vendor's changed CVEs newest first, each linking its page and saying what changed; ETag 304", async () => {
  const v = (
    await sql<{ slug: string }>`SELECT unnest(vendor_slugs) AS slug FROM cves WHERE cve_id = 'CVE-2024-8531'`.execute(
      t.store.db,
    )
  ).rows[0].slug;
  const r = await t.app.inject({ method: 'GET', url: `/feeds/vendor/${v}.atom` });
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^application\/atom\+xml/);
  const { feed, entries } = parse(r.body);
  assert.equal(feed.id, `https://vulnintel.test/feeds/vendor/${v}.atom`);
  const expected = await expectedFor(v);
  assert.ok(expected.length >= 1);
  assert.deepEqual(
    entries.map((e) => e.title.split(/[ :]/)[0]),
    expected,
  );
  const e = entries.find((x) => x.title.startsWith('CVE-2024-8531'))!;
  assert.equal(e.link, 'https://vulnintel.test/cve/CVE-2024-8531');
  assert.match(e.summary, /advisory/i, 'the change is said');
  assert.match(e.id, /^urn:vulnintel:change:\d+$/);
  // Newest first by feed position (positions follow commit order; `updated` is the writing transaction's start,
  // so two concurrent import writers may leave it a few milliseconds out of that order).
  const seqs = entries.map((x) => Number(x.id.split(':').at(-1)));
  assert.deepEqual(
    [...seqs].sort((a, b) => b - a),
    seqs,
    'newest first',
  );
  assert.ok(entries.every((x) => Number.isFinite(Date.parse(x.updated))));
  const etag = String(r.headers.etag);
  const again = await t.app.inject({
    method: 'GET',
    url: `/feeds/vendor/${v}.atom`,
    headers: { 'if-none-match': etag },
  });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
});

test('a vendor feed with no change yet (its CVEs came in the bulk import): no entry, as new as the corpus (not 1970)', async () => {
  const quiet = (
    await sql<{
      slug: string;
    }>`SELECT v.slug FROM vendors v WHERE EXISTS (SELECT 1 FROM cves c WHERE v.slug = ANY(c.vendor_slugs))
    AND NOT EXISTS (SELECT 1 FROM cves c JOIN cve_changes ch ON ch.cve_id = c.cve_id WHERE v.slug = ANY(c.vendor_slugs)) ORDER BY v.slug LIMIT 1`.execute(
      t.store.db,
    )
  ).rows[0]?.slug;
  assert.ok(quiet, 'a vendor whose CVEs have no recorded change');
  const r = await t.app.inject({ method: 'GET', url: `/feeds/vendor/${quiet}.atom` });
  assert.equal(r.statusCode, 200, r.body);
  const { feed, entries } = parse(r.body);
  assert.deepEqual(entries, []);
  const at = (await sql<{ changed_at: Date }>`SELECT changed_at FROM cve_corpus_state WHERE id = 1`.execute(t.store.db))
    .rows[0].changed_at;
  assert.equal(new Date(feed.updated).getTime(), at.getTime());
  assert.equal(r.headers['last-modified'], at.toUTCString());
});

test('unknown vendor, no .atom suffix: 404 in the envelope', async () => {
  for (const url of ['/feeds/vendor/no-such-vendor.atom', '/feeds/vendor/siemens', '/feeds/vendor/.atom']) {
    const r = await t.app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 404, url);
    assert.equal(r.json().error.code, 'NOT_FOUND');
  }
});

test('hostile text in a title is escaped or dropped: the document stays well-formed XML', async () => {
  const v = (
    await sql<{ slug: string }>`SELECT unnest(vendor_slugs) AS slug FROM cves WHERE cve_id = 'CVE-2024-8531'`.execute(
      t.store.db,
    )
  ).rows[0].slug;
  await sql`UPDATE cves SET title = ${'Overflow <script>alert(1)</script> & "quotes" \u0001\u001f end'} WHERE cve_id = 'CVE-2024-8531'`.execute(
    t.store.db,
  );
  await sql`INSERT INTO cve_changes (seq, cve_id, kind, before, after) VALUES (nextval('cve_changes_seq'), 'CVE-2024-8531', 'kev_added', '{"kev": false}', '{"kev": true}')`.execute(
    t.store.db,
  );
  const r = await t.app.inject({ method: 'GET', url: `/feeds/vendor/${v}.atom` });
  assert.ok(!r.body.includes('<script>'), 'markup is escaped');
  assert.ok(!r.body.includes('\u0001') && !r.body.includes('\u001f'), 'control characters are dropped');
  const { entries } = parse(r.body);
  assert.ok(entries[0].title.startsWith('CVE-2024-8531'), 'the newest change comes first');
  // Titles and summaries are type="html": the plain text arrives HTML-escaped, so readers show it as text.
  assert.match(entries[0].summary, /Overflow &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;quotes&quot; {2}end/);
});

test("watchlist feed: a token shown once, the watched vendor's CVEs only, revoked at once; tokens are tenant data", async () => {
  const o = await seedOrg(t.store, { tier: 'standard' });
  const other = await seedOrg(t.store, { tier: 'standard' });
  const v = (
    await sql<{ slug: string }>`SELECT unnest(vendor_slugs) AS slug FROM cves WHERE cve_id = 'CVE-2024-8531'`.execute(
      t.store.db,
    )
  ).rows[0].slug;
  const w = await t.app.inject({
    method: 'POST',
    url: '/api/v1/watchlist',
    headers: o.auth,
    payload: { entity_type: 'vendor', entity_id: v },
  });
  assert.equal(w.statusCode, 201, w.body);
  const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
  assert.equal(
    (await t.app.inject({ method: 'POST', url: '/api/v1/feeds/tokens', headers: viewer.auth, payload: {} })).statusCode,
    403,
  );

  // A label of spaces only is refused as an empty one is (not taken as no label), and nothing is stored.
  const blank = await t.app.inject({
    method: 'POST',
    url: '/api/v1/feeds/tokens',
    headers: o.auth,
    payload: { label: '   ' },
  });
  assert.equal(blank.statusCode, 422, blank.body);
  assert.deepEqual(blank.json().error.detail, [
    {
      field: 'body.label',
      message:
        'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
      type: 'value_error.str.regex',
    },
  ]);
  const bidi = await t.app.inject({
    method: 'POST',
    url: '/api/v1/feeds/tokens',
    headers: o.auth,
    payload: { label: 'SOC \u202Ereader' },
  });
  assert.deepEqual([bidi.statusCode, bidi.json().error.detail[0].field], [422, 'body.label']);
  assert.equal(
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM feed_tokens WHERE org_id = ${o.orgId}`.execute(t.store.db))
      .rows[0].n,
    0,
  );

  const c = await t.app.inject({
    method: 'POST',
    url: '/api/v1/feeds/tokens',
    headers: o.auth,
    payload: { label: 'SOC reader' },
  });
  assert.equal(c.statusCode, 201, c.body);
  const tok = c.json().data;
  assert.match(tok.token, /^vi_feed_[A-Za-z0-9_-]{43}$/);
  assert.equal(tok.url, `https://vulnintel.test/feeds/watchlist/${tok.token}.atom`);
  assert.deepEqual([tok.label, tok.status, tok.token_start], ['SOC reader', 'active', tok.token.slice(0, 14)]);
  const stored = (
    await sql<{ token_hash: string }>`SELECT token_hash FROM feed_tokens WHERE id = ${tok.id}`.execute(t.store.db)
  ).rows[0].token_hash;
  assert.notEqual(stored, tok.token, 'only the hash is stored');

  const list = await t.app.inject({ method: 'GET', url: '/api/v1/feeds/tokens', headers: o.auth });
  assert.deepEqual(
    list.json().data.map((x: { id: number }) => x.id),
    [tok.id],
  );
  assert.deepEqual(list.json().pagination, {
    total: 1,
    page: 1,
    per_page: 20,
    pages: 1,
    has_next: false,
    has_prev: false,
    count: 1,
  });
  const past = (
    await t.app.inject({ method: 'GET', url: '/api/v1/feeds/tokens?page=2&per_page=1', headers: o.auth })
  ).json();
  assert.deepEqual([past.data, past.pagination.total, past.pagination.has_prev], [[], 1, true]);
  assert.ok(!list.body.includes(tok.token), 'never listed');
  assert.deepEqual(
    (await t.app.inject({ method: 'GET', url: '/api/v1/feeds/tokens', headers: other.auth })).json().data,
    [],
  );

  const f = await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${tok.token}.atom` });
  assert.equal(f.statusCode, 200, f.body);
  const { feed, entries } = parse(f.body);
  assert.deepEqual(
    entries.map((e) => e.title.split(/[ :]/)[0]),
    await expectedFor(v),
  );
  assert.equal(
    feed.id,
    `urn:vulnintel:watchlist-feed:${createHash('sha256').update(tok.token).digest('hex').slice(0, 16)}`,
    'the feed id reveals no tenant id',
  );

  // Another organization cannot revoke it; the owner can, and the feed stops at once.
  assert.equal(
    (await t.app.inject({ method: 'DELETE', url: `/api/v1/feeds/tokens/${tok.id}`, headers: other.auth })).statusCode,
    404,
  );
  const rv = await t.app.inject({ method: 'DELETE', url: `/api/v1/feeds/tokens/${tok.id}`, headers: o.auth });
  assert.equal(rv.json().data.status, 'revoked');
  const gone = await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${tok.token}.atom` });
  assert.equal(gone.statusCode, 404);
  const unknown = await t.app.inject({ method: 'GET', url: `/feeds/watchlist/vi_feed_${'A'.repeat(43)}.atom` });
  assert.deepEqual(
    [unknown.statusCode, unknown.json().error.message],
    [404, gone.json().error.message],
    'revoked and unknown look the same',
  );
});

test('the ETag follows what the feed shows: a renamed organization or a retitled CVE is a new document, not a 304', async () => {
  const o = await seedOrg(t.store, { tier: 'standard', name: 'Utility North' });
  const v = (
    await sql<{ slug: string }>`SELECT unnest(vendor_slugs) AS slug FROM cves WHERE cve_id = 'CVE-2024-8531'`.execute(
      t.store.db,
    )
  ).rows[0].slug;
  assert.equal(
    (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/watchlist',
        headers: o.auth,
        payload: { entity_type: 'vendor', entity_id: v },
      })
    ).statusCode,
    201,
  );
  const tok = (await t.app.inject({ method: 'POST', url: '/api/v1/feeds/tokens', headers: o.auth, payload: {} })).json()
    .data.token as string;
  const url = `/feeds/watchlist/${tok}.atom`;
  const first = await t.app.inject({ method: 'GET', url });
  assert.equal(parse(first.body).feed.title, 'Vulnintel: Utility North watchlist');
  const etag = String(first.headers.etag);
  assert.equal(
    (await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })).statusCode,
    304,
    'nothing changed: 304',
  );

  const ren = await t.app.inject({
    method: 'PUT',
    url: '/api/v1/account/org',
    headers: o.auth,
    payload: { name: 'Utility North-East' },
  });
  assert.equal(ren.statusCode, 200, ren.body);
  const renamed = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
  assert.equal(renamed.statusCode, 200, 'the feed title changed: a new document');
  assert.equal(parse(renamed.body).feed.title, 'Vulnintel: Utility North-East watchlist');
  assert.notEqual(String(renamed.headers.etag), etag);

  const vendorUrl = `/feeds/vendor/${v}.atom`;
  const vEtag = String((await t.app.inject({ method: 'GET', url: vendorUrl })).headers.etag);
  await sql`UPDATE cves SET title = 'Retitled by its source' WHERE cve_id = 'CVE-2024-8531'`.execute(t.store.db);
  const retitled = await t.app.inject({ method: 'GET', url: vendorUrl, headers: { 'if-none-match': vEtag } });
  assert.equal(retitled.statusCode, 200, 'an entry summary changed: a new document');
  assert.ok(parse(retitled.body).entries.some((e) => e.summary.includes('Retitled by its source')));
});

test("a deactivated organization's feed token stops working", async () => {
  const o = await seedOrg(t.store, { tier: 'standard' });
  const tok = (await t.app.inject({ method: 'POST', url: '/api/v1/feeds/tokens', headers: o.auth, payload: {} })).json()
    .data;
  const before = await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${tok.token}.atom` });
  assert.equal(before.statusCode, 200);
  assert.match(String(before.headers['content-type']), /^application\/atom\+xml/);
  assert.match(before.body, /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"/);
  await sql`UPDATE organizations SET status = 'deactivated', deactivated_at = now() WHERE id = ${o.orgId}`.execute(
    t.store.db,
  );
  const after = await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${tok.token}.atom` });
  assert.equal(after.statusCode, 404);
  assert.doesNotMatch(after.body, /<feed|<entry/, 'a stopped token reads nothing of the feed');
});

test("a removed member's feed tokens stop working; a token made without a body has no label", async () => {
  // Removal revokes the member's feed tokens with its keys: otherwise a removed admin would still read the
  // organization's feed (its watchlist and stored assets). And POST without a body is no 422.
  const o = await seedOrg(t.store, { tier: 'standard' });
  const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
  const made = await t.app.inject({ method: 'POST', url: '/api/v1/feeds/tokens', headers: admin.auth });
  assert.equal(made.statusCode, 201, made.body);
  const theirs = made.json().data;
  assert.equal(theirs.label, null);
  const mine = (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/feeds/tokens',
      headers: o.auth,
      payload: { label: 'owner reader' },
    })
  ).json().data;
  assert.equal((await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${theirs.token}.atom` })).statusCode, 200);
  assert.equal(
    (await t.app.inject({ method: 'DELETE', url: `/api/v1/account/team/${admin.memberId}`, headers: o.auth }))
      .statusCode,
    200,
  );
  assert.equal((await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${theirs.token}.atom` })).statusCode, 404);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: `/feeds/watchlist/${mine.token}.atom` })).statusCode,
    200,
    "the owner's token stays",
  );
});
