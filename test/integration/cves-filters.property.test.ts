// Property tests: any composition of list filters returns exactly what a brute-force filter over the same
// documents returns (same ids, same order, exact total); and the trigger-maintained counts stay equal to a
// recount after arbitrary inserts, updates and deletes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { ICS_PROTOCOLS, type CveDocument, type IcsProtocol, type PatchStatus } from '../../src/domain/cve-document.ts';
import { patchStatusesFor, type PatchFilterValue } from '../../src/domain/cve-view.ts';

let t: TestApp;
let auth: Record<string, string>;
before(async () => {
  // The response cache is off here: every request must hit the queries under test.
  t = await testApp({ env: { VULNINTEL_CVE_CACHE_ENTRIES: '0' } });
  auth = (await seedOrg(t.store, { tier: 'enterprise' })).auth;
});
after(async () => {
  await t.close();
});

const VENDORS = [
  { slug: 'siemens', name: 'Siemens' },
  { slug: 'moxa', name: 'Moxa' },
  { slug: 'acme', name: 'Acme' },
];
const PROTOS: IcsProtocol[] = ['modbus', 'dnp3', 'http'];
const PATCH: PatchStatus[] = ['patched', 'unknown', 'varies_by_product'];

const docArb = (i: number) =>
  fc
    .record({
      cvss: fc.option(
        fc.integer({ min: 0, max: 100 }).map((x) => x / 10),
        { nil: null },
      ),
      bcs: fc.integer({ min: 0, max: 100 }).map((x) => x / 10),
      epss: fc.option(
        fc.integer({ min: 0, max: 1000 }).map((x) => x / 1000),
        { nil: null },
      ),
      kev: fc.boolean(),
      poc: fc.boolean(),
      exploit: fc.boolean(),
      patch: fc.constantFrom(...PATCH),
      vendors: fc.subarray(VENDORS, { minLength: 1 }),
      protocols: fc.subarray(PROTOS),
      // A few share a date so the cve_id tie-break is exercised; some have none.
      day: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }),
    })
    .map((r) =>
      buildCve({
        id: `CVE-2020-${String(10000 + i)}`,
        cvss: r.cvss,
        bcs: r.bcs,
        epss: r.epss,
        percentile: r.epss,
        kev: r.kev,
        poc: r.poc,
        exploit: r.exploit,
        patch: r.patch,
        vendors: r.vendors,
        protocols: r.protocols,
        published: r.day === null ? null : new Date(Date.UTC(2023, 0, 1 + r.day, 12)).toISOString(),
      }),
    );

const corpusArb = fc
  .integer({ min: 0, max: 30 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => docArb(i))));

// Each filter is absent three times out of four, so both the facet-count path (few, discrete filters) and the
// count(*) path (ranges, dates) are exercised often.
const opt = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: a, weight: 1 });

const filterArb = fc.record(
  {
    severity: opt(fc.subarray(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'], { minLength: 1 })),
    cvss_min: opt(fc.integer({ min: 0, max: 100 }).map((x) => x / 10)),
    cvss_max: opt(fc.integer({ min: 0, max: 100 }).map((x) => x / 10)),
    bcs_min: opt(fc.integer({ min: 0, max: 100 }).map((x) => x / 10)),
    kev: opt(fc.boolean()),
    vendor: opt(fc.constantFrom('siemens', 'Moxa', 'ACME', 'unknown-vendor')),
    protocol: opt(fc.constantFrom(...PROTOS)),
    unpatched: opt(fc.boolean()),
    has_exploit: opt(fc.boolean()),
    patch_status: opt(fc.constantFrom<PatchFilterValue>('patched', 'unpatched', 'partial', 'unknown')),
    date_from: opt(fc.integer({ min: 0, max: 40 })),
    sort_by: opt(fc.constantFrom('date', 'cvss', 'epss')),
    per_page: fc.integer({ min: 1, max: 12 }),
    page: fc.integer({ min: 1, max: 4 }),
  },
  { requiredKeys: ['per_page', 'page'] },
);
type Filter = typeof filterArb extends fc.Arbitrary<infer T> ? T : never;

const day = (d: number) => new Date(Date.UTC(2023, 0, 1 + d)).toISOString().slice(0, 10);

function bruteForce(docs: CveDocument[], f: Filter): CveDocument[] {
  const patch = patchStatusesFor(f.patch_status ?? undefined, f.unpatched ?? undefined);
  const vendorSlug = f.vendor ? (VENDORS.find((v) => v.slug === f.vendor!.toLowerCase())?.slug ?? '∅') : null;
  const out = docs.filter((d) => {
    const c = d.scoring.cvss;
    if (f.severity && !(c.severity && f.severity.includes(c.severity))) return false;
    if (f.cvss_min != null && !(c.score !== null && c.score >= f.cvss_min)) return false;
    if (f.cvss_max != null && !(c.score !== null && c.score <= f.cvss_max)) return false;
    if (f.bcs_min != null && !(d.scoring.bcs.score >= f.bcs_min)) return false;
    if (f.kev != null && d.exploitation.kev_flagged !== f.kev) return false;
    if (vendorSlug && !d.affected.vendor_slugs.includes(vendorSlug)) return false;
    if (f.protocol && !d.affected.protocols.includes(f.protocol)) return false;
    if (f.has_exploit != null && (d.exploitation.has_public_exploit || d.exploitation.poc_available) !== f.has_exploit)
      return false;
    if (patch && !patch.includes(d.patch.status)) return false;
    if (f.date_from != null && !(d.temporal.published_at && d.temporal.published_at.slice(0, 10) >= day(f.date_from)))
      return false;
    return true;
  });
  const key = (d: CveDocument): number | null => {
    if (f.sort_by === 'cvss') return d.scoring.cvss.score;
    if (f.sort_by === 'epss') return d.scoring.epss.score;
    return d.temporal.published_at ? Date.parse(d.temporal.published_at) : null;
  };
  // Descending, nulls last, then cve_id descending.
  return out.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) {
      if (ka === null) return 1;
      if (kb === null) return -1;
      // Compare as float4, as stored.
      const fa = Math.fround(ka);
      const fb = Math.fround(kb);
      if (fa !== fb) return fb - fa;
    }
    return a.cve_id < b.cve_id ? 1 : a.cve_id > b.cve_id ? -1 : 0;
  });
}

function query(f: Filter): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) {
    if (v === null || v === undefined) continue;
    if (k === 'severity') p.set(k, (v as string[]).join(','));
    else if (k === 'date_from') p.set(k, day(v as number));
    else p.set(k, String(v));
  }
  return p.toString();
}

async function reset(docs: CveDocument[]) {
  await sql`DELETE FROM cves`.execute(t.store.db);
  await seedCves(t.store, docs);
}

test('any composition of filters equals a brute-force filter (ids, order, exact total)', async () => {
  await fc.assert(
    fc.asyncProperty(corpusArb, fc.array(filterArb, { minLength: 1, maxLength: 8 }), async (docs, filters) => {
      await reset(docs);
      for (const f of filters) {
        if (f.cvss_min != null && f.cvss_max != null && f.cvss_min > f.cvss_max) continue;
        const r = await t.app.inject({ method: 'GET', url: `/api/v1/cves?${query(f)}`, headers: auth });
        assert.equal(r.statusCode, 200, r.body);
        const b = r.json();
        const want = bruteForce(docs, f);
        assert.equal(b.pagination.total, want.length, `total for ${query(f)}`);
        const start = (f.page - 1) * f.per_page;
        assert.deepEqual(
          b.data.map((c: { cve_id: string }) => c.cve_id),
          want.slice(start, start + f.per_page).map((d) => d.cve_id),
          query(f),
        );
      }
    }),
    { numRuns: 40 },
  );
});

test('trigger-maintained counts equal a recount after inserts, updates and deletes', async () => {
  await fc.assert(
    fc.asyncProperty(
      corpusArb,
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('kev', 'patch', 'vendors', 'delete', 'protocols')), {
        maxLength: 10,
      }),
      async (docs, ops) => {
        await reset(docs);
        const live = new Map(docs.map((d) => [d.cve_id, structuredClone(d)]));
        for (const [n, op] of ops) {
          const list = [...live.values()];
          if (list.length === 0) break;
          const d = list[n % list.length];
          if (op === 'delete') {
            await sql`DELETE FROM cves WHERE cve_id = ${d.cve_id}`.execute(t.store.db);
            live.delete(d.cve_id);
            continue;
          }
          if (op === 'kev') d.exploitation.kev_flagged = !d.exploitation.kev_flagged;
          if (op === 'patch') d.patch.status = PATCH[(PATCH.indexOf(d.patch.status) + 1) % 3];
          if (op === 'vendors') {
            const v = VENDORS[n % 3];
            d.affected.vendor_slugs = [v.slug];
            d.affected.vendors = [v.name];
          }
          if (op === 'protocols') d.affected.protocols = d.affected.protocols.length ? [] : [ICS_PROTOCOLS[n % 3]];
          await seedCves(t.store, [d]);
        }
        const all = [...live.values()];
        const s = (await t.app.inject({ method: 'GET', url: '/api/v1/cves/stats/summary' })).json().data;
        assert.equal(s.total, all.length);
        assert.equal(s.kev, all.filter((d) => d.exploitation.kev_flagged).length);
        for (const p of PATCH) assert.equal(s.by_patch_status[p], all.filter((d) => d.patch.status === p).length);
        for (const v of VENDORS) {
          const r = (
            await t.app.inject({ method: 'GET', url: `/api/v1/cves/vendor/${v.slug}?per_page=50`, headers: auth })
          ).json();
          const want = all
            .filter((d) => d.affected.vendor_slugs.includes(v.slug))
            .map((d) => d.cve_id)
            .sort();
          assert.equal(r.pagination.total, want.length);
          assert.deepEqual(r.data.map((c: { cve_id: string }) => c.cve_id).sort(), want);
        }
        for (const p of PROTOS) {
          const r = (
            await t.app.inject({ method: 'GET', url: `/api/v1/cves/protocol/${p}?per_page=50`, headers: auth })
          ).json();
          assert.equal(r.pagination.total, all.filter((d) => d.affected.protocols.includes(p)).length);
        }
        // Counts equal a recount straight from the table, in both directions.
        const drift = await sql<{ n: number }>`
      WITH recount AS (
        SELECT 'all' AS scope, '' AS key, coalesce(severity, '') AS severity, kev_flagged AS kev,
               has_public_exploit OR poc_available AS exploit, patch_status, exploit_maturity AS maturity, ics_relevant, count(*) AS n
        FROM cves GROUP BY 3, 4, 5, 6, 7, 8
        UNION ALL
        SELECT 'vendor', v, coalesce(severity, ''), kev_flagged, has_public_exploit OR poc_available, patch_status,
               exploit_maturity, ics_relevant, count(*) FROM cves, unnest(vendor_slugs) v GROUP BY 2, 3, 4, 5, 6, 7, 8
        UNION ALL
        SELECT 'protocol', p, coalesce(severity, ''), kev_flagged, has_public_exploit OR poc_available, patch_status,
               exploit_maturity, ics_relevant, count(*) FROM cves, unnest(protocols) p GROUP BY 2, 3, 4, 5, 6, 7, 8
      ), stored AS (
        -- Rows that dropped to zero are kept (0202); they count nothing.
        SELECT scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, n FROM cve_facet_counts WHERE n <> 0
      )
      SELECT ((SELECT count(*) FROM (SELECT * FROM stored EXCEPT SELECT * FROM recount) a) +
              (SELECT count(*) FROM (SELECT * FROM recount EXCEPT SELECT * FROM stored) b))::int AS n`.execute(
          t.store.db,
        );
        assert.equal(drift.rows[0].n, 0);
        const negative = await sql<{
          n: number;
        }>`SELECT (SELECT count(*) FROM cve_facet_counts WHERE n < 0) + (SELECT count(*) FROM cve_stat_counts WHERE n < 0) AS n`.execute(
          t.store.db,
        );
        assert.equal(Number(negative.rows[0].n), 0);
      },
    ),
    { numRuns: 30 },
  );
});
