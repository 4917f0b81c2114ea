// The alert run at its target scale (1,000 organizations × 20 watchlist entries and 100
// assets each, a window of 2,000 changed CVEs: ≤ 2 s, RSS stated). Builds the setup in a copy of a database with
// real vendors, products, ranges and CVEs, runs the alert run once through the real service, and prints the time,
// the alerts written and the RSS. Never part of `npm test`; never writes to the source database.
//
// Usage (full size, on a quiet machine; copies vi_bench, about 4 GB, and drops the copy at the end):
//   nice -n 0 npx tsx bench/alert-run.ts
// Smoke (small corpus imported from the test fixtures, no copy):
//   BENCH_TEMPLATE=fixtures BENCH_ORGS=5 BENCH_CVES=20 npx tsx bench/alert-run.ts
// Knobs: BENCH_TEMPLATE (vi_bench | fixtures), BENCH_ORGS (1000), BENCH_WATCH (20 per org), BENCH_ASSETS (100 per
// org, of which BENCH_HOSTS are Windows hosts, default 5), BENCH_CVES (2000), BENCH_WINDOW_SHARE (0.2),
// BENCH_ASSET_DRAW (products | ranges, see setup), BENCH_KEEP=1 keeps the copy.
//
// The setup: the window is BENCH_CVES real CVEs, a random sample of the corpus (so Microsoft CVEs, which alert every
// organization with a Windows host, come at their natural share), each given one recorded change after the last
// completed run. The run's cost follows the alerts it writes: the output states them, by match type and per organization. Each organization has one environment; its watch
// entries are BENCH_WINDOW_SHARE from the window's vendors, products, protocols and CVEs and the rest from the whole
// catalog; its v1 assets carry the vendor, product and a version stated by real ranges (the same share from ranges
// of window CVEs: an organization's equipment is not all hit at once), its Windows
// hosts are real host records of three builds. Inserted with set-based SQL; only the run is timed.
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { ADMIN_URL, freshDb, withAdmin } from '../test/helpers/db.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { createAlertService } from '../src/services/alerts.ts';
import type { AlertRunReport } from '../src/services/alert-run.ts';

const TEMPLATE = process.env.BENCH_TEMPLATE ?? 'vi_bench';
const ORGS = Number(process.env.BENCH_ORGS ?? 1000);
const WATCH = Number(process.env.BENCH_WATCH ?? 20);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 100);
const HOSTS = Math.min(ASSETS, Number(process.env.BENCH_HOSTS ?? 5));
const CVES = Number(process.env.BENCH_CVES ?? 2000);
/** Share of watch entries and v1 assets drawn from what the window's CVEs name (the rest: the whole catalog). */
const SHARE = Number(process.env.BENCH_WINDOW_SHARE ?? 0.2);
/** How v1 assets are drawn: `products` (uniform over distinct products, default) or `ranges` (weighted by range rows). */
const DRAW = process.env.BENCH_ASSET_DRAW === 'ranges' ? 'ranges' : 'products';
const mb = (n: number) => Math.round(n / 1048576);

/** A deterministic generator: the same setup on every run. */
let seed = 0x2545f491;
const rnd = () => (seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

const admin = withAdmin;

async function database(): Promise<{ store: Store; drop: () => Promise<void> }> {
  if (TEMPLATE === 'fixtures') {
    const db = await freshDb();
    const { importPaths } = await import('../src/services/import/pipeline.ts');
    const { importMsrcDocuments } = await import('../src/services/import/msrc-documents.ts');
    const { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } = await import('../test/helpers/ingest.ts');
    const { fixture } = await import('../test/helpers/feeds.ts');
    const { FIXTURE_DIR } = await import('../test/unit/windows/fixture-index.ts');
    const quiet = { info() {}, warn() {} };
    await importPaths(
      db.store.db,
      [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES, fixture('nvd', 'CVE-2024-38063.json')])],
      { log: quiet },
    );
    await importMsrcDocuments(db.store.db, [FIXTURE_DIR]);
    if (process.env.BENCH_KEEP) console.error(`database: ${db.name}`);
    return { store: db.store, drop: () => (process.env.BENCH_KEEP ? db.store.close() : db.drop()) };
  }
  const name = `bench_alert_run_${process.pid}`;
  const t0 = performance.now();
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
  console.error(`copied ${TEMPLATE} to ${name} in ${Math.round(performance.now() - t0)} ms`);
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await migrate(pool, { log: () => {} });
  await pool.end();
  const store = openStore(url, { max: 10 });
  return {
    store,
    async drop() {
      await store.close();
      if (!process.env.BENCH_KEEP) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Real Windows host records (the v2 shape) of three builds the engine maps. */
const HOST_SHAPES = [
  {
    os_product: 'Windows Server 2019 Datacenter',
    edition_id: 'ServerDatacenter',
    display_version: '1809',
    os_build: '10.0.17763.8755',
    installation_type: 'Server',
  },
  {
    os_product: 'Windows Server 2022 Standard',
    edition_id: 'ServerStandard',
    display_version: '21H2',
    os_build: '10.0.20348.2655',
    installation_type: 'Server',
  },
  {
    os_product: 'Windows 10 Enterprise',
    edition_id: 'Enterprise',
    display_version: '22H2',
    os_build: '10.0.19045.4780',
    installation_type: 'Client',
  },
];

async function setup(store: Store): Promise<Record<string, number | string>> {
  const q = async <R>(text: string, params: unknown[] = []) => (await store.pool.query(text, params)).rows as R[];
  await q(`TRUNCATE alerts, alert_runs CASCADE`);
  // Every change recorded so far is behind the last completed run: the window is only the changes made here.
  await q(`INSERT INTO alert_runs (from_seq, to_seq, status, trigger, finished_at)
    SELECT 0, coalesce((SELECT max(seq) FROM cve_changes), 0), 'completed', 'cli', now()`);
  const window = (await q<{ cve_id: string }>(`SELECT cve_id FROM cves ORDER BY md5(cve_id) LIMIT $1`, [CVES])).map(
    (r) => r.cve_id,
  );
  await q(
    `INSERT INTO cve_changes (seq, cve_id, kind, before, after)
    SELECT nextval('cve_changes_seq'), c.cve_id, 'epss_threshold', jsonb_build_object('epss_percentile', null, 'band', null),
      jsonb_build_object('epss_percentile', (c.doc->'scoring'->'epss'->>'percentile')::float8, 'band', 4)
    FROM cves c WHERE c.cve_id = ANY($1::text[]) ORDER BY c.cve_id`,
    [window],
  );

  // Pools: what the window's CVEs name, and the whole catalog.
  const wVendors = (
    await q<{ v: string }>(`SELECT DISTINCT unnest(vendor_slugs) AS v FROM cves WHERE cve_id = ANY($1::text[])`, [
      window,
    ])
  ).map((r) => r.v);
  // Product watch keys as the watch list stores them (`<vendor>/<product key>` of the CVE's named products).
  const wProducts = (
    await q<{ k: string }>(
      `SELECT DISTINCT v || '/' || vi_product_key(p) AS k FROM cves c, unnest(c.vendor_slugs) AS v,
    jsonb_array_elements_text(c.doc->'affected'->'products') AS p WHERE c.cve_id = ANY($1::text[]) AND vi_product_key(p) <> ''`,
      [window],
    )
  ).map((r) => r.k);
  const wProtocols = (
    await q<{ p: string }>(`SELECT DISTINCT unnest(protocols) AS p FROM cves WHERE cve_id = ANY($1::text[])`, [window])
  ).map((r) => r.p);
  const allVendors = (await q<{ v: string }>(`SELECT slug AS v FROM vendors`)).map((r) => r.v);
  const allProducts = (await q<{ k: string }>(`SELECT vendor_slug || '/' || product_key AS k FROM products`)).map(
    (r) => r.k,
  );
  type R = { vendor: string; product: string; cpe: string | null; v: string | null };
  const rangeSel = `SELECT range->>'vendor' AS vendor, range->>'product' AS product, range->>'cpe' AS cpe,
    coalesce(range->>'version', range->'end'->>'version', range->'start'->>'version') AS v FROM cve_range_rows`;
  // DRAW=products: an asset is a product drawn uniformly from the distinct (vendor, product) pairs, with a version one
  // of its ranges states: an organization's equipment, most of it rarely in a CVE. DRAW=ranges: a range row drawn
  // uniformly, so a product is drawn as often as it has ranges (the worst case: in the generated corpus three
  // Siemens S7-1500 CPUs are in 15,600 CVEs each, and most organizations then hold several of them).
  const wRanges =
    DRAW === 'ranges'
      ? await q<R>(`${rangeSel} WHERE cve_id = ANY($1::text[]) LIMIT 20000`, [window])
      : await q<R>(
          `SELECT DISTINCT ON (vendor_slug, product_key) range->>'vendor' AS vendor, range->>'product' AS product, range->>'cpe' AS cpe,
        coalesce(range->>'version', range->'end'->>'version', range->'start'->>'version') AS v FROM cve_range_rows
        WHERE cve_id = ANY($1::text[]) ORDER BY vendor_slug, product_key, md5(cve_id || group_ord || '.' || n)`,
          [window],
        );
  const allRanges =
    DRAW === 'ranges'
      ? await q<R>(`${rangeSel} WHERE random() < 0.05 LIMIT 20000`)
      : await q<R>(`SELECT DISTINCT ON (vendor_slug, product_key) range->>'vendor' AS vendor, range->>'product' AS product, range->>'cpe' AS cpe,
        coalesce(range->>'version', range->'end'->>'version', range->'start'->>'version') AS v FROM cve_range_rows
        ORDER BY vendor_slug, product_key, md5(cve_id || group_ord || '.' || n)`);
  if (!allRanges.length) allRanges.push(...wRanges);

  const orgs = (
    await q<{ id: string }>(
      `INSERT INTO organizations (name, tier) SELECT 'Bench org ' || g, 'professional' FROM generate_series(1, $1::int) g RETURNING id`,
      [ORGS],
    )
  ).map((r) => Number(r.id));
  const envs = await q<{ id: string; org_id: string }>(
    `INSERT INTO environments (org_id, name) SELECT unnest($1::bigint[]), 'Plant' RETURNING id, org_id`,
    [orgs],
  );
  const envOf = new Map(envs.map((e) => [Number(e.org_id), Number(e.id)]));

  const watch: { org_id: number; entity_type: string; entity_key: string }[] = [];
  const assets: { org_id: number; environment_id: number; asset_id: string; asset: unknown }[] = [];
  const hosts: { org_id: number; environment_id: number; asset_id: string; host: unknown }[] = [];
  for (const org of orgs) {
    const keys = new Set<string>();
    for (let i = 0; keys.size < WATCH && i < WATCH * 5; i++) {
      const fromWindow = rnd() < SHARE;
      const r = rnd();
      const e =
        r < 0.4
          ? ['vendor', pick(fromWindow && wVendors.length ? wVendors : allVendors)]
          : r < 0.85
            ? ['product', pick(fromWindow && wProducts.length ? wProducts : allProducts)]
            : r < 0.93 && wProtocols.length
              ? ['protocol', pick(wProtocols)]
              : ['cve', pick(window)];
      if (e[1] === undefined) continue;
      keys.add(`${e[0]}\u0000${e[1]}`);
    }
    for (const k of keys) {
      const [entity_type, entity_key] = k.split('\u0000');
      watch.push({ org_id: org, entity_type, entity_key });
    }
    for (let i = 0; i < ASSETS - HOSTS; i++) {
      const r = pick(rnd() < SHARE && wRanges.length ? wRanges : allRanges);
      assets.push({
        org_id: org,
        environment_id: envOf.get(org)!,
        asset_id: `asset-${i}`,
        asset: { asset_id: `asset-${i}`, vendor: r.vendor, product: r.product, version: r.v, cpe: null },
      });
    }
    for (let i = 0; i < HOSTS; i++) {
      const asset_id = `host-${i}`;
      hosts.push({
        org_id: org,
        environment_id: envOf.get(org)!,
        asset_id,
        host: {
          asset_id,
          ...pick(HOST_SHAPES),
          architecture: 'x64',
          installed_kbs: [],
          kb_source: 'Get-HotFix',
          esu_enrolled: '',
          collected_at: '2026-07-01T08:00:00Z',
        },
      });
    }
  }
  for (let i = 0; i < watch.length; i += 10000) {
    await q(
      `INSERT INTO watchlist_entries (org_id, entity_type, entity_key) SELECT org_id, entity_type, entity_key
      FROM jsonb_to_recordset($1::jsonb) AS x(org_id bigint, entity_type text, entity_key text) ON CONFLICT DO NOTHING`,
      [JSON.stringify(watch.slice(i, i + 10000))],
    );
  }
  for (let i = 0; i < assets.length; i += 10000) {
    await q(
      `INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
      SELECT org_id, environment_id, asset_id, asset, '{}'::jsonb, 'bench' FROM jsonb_to_recordset($1::jsonb)
        AS x(org_id bigint, environment_id bigint, asset_id text, asset jsonb) ON CONFLICT DO NOTHING`,
      [JSON.stringify(assets.slice(i, i + 10000))],
    );
  }
  for (let i = 0; i < hosts.length; i += 10000) {
    await q(
      `INSERT INTO windows_host_results (org_id, environment_id, asset_id, host, result, evaluated_on)
      SELECT org_id, environment_id, asset_id, host, '{}'::jsonb, current_date FROM jsonb_to_recordset($1::jsonb)
        AS x(org_id bigint, environment_id bigint, asset_id text, host jsonb)`,
      [JSON.stringify(hosts.slice(i, i + 10000))],
    );
  }
  await q(`ANALYZE`);
  return {
    asset_draw: DRAW,
    organizations: orgs.length,
    watch_entries: watch.length,
    v1_assets: assets.length,
    windows_hosts: hosts.length,
    window_cves: window.length,
  };
}

const { store, drop } = await database();
try {
  const shape = await setup(store);
  console.error(`setup: ${JSON.stringify(shape)}`);
  const svc = createAlertService(store.db, {
    publicUrl: 'https://vulnintel.bench',
    now: () => new Date(),
    chunkSize: process.env.BENCH_CHUNK ? Number(process.env.BENCH_CHUNK) : undefined,
  });
  // Run 1 builds the Windows engine's index inside the run (a worker's first run after it started); run 2 is the
  // steady state of a running server or worker, whose service keeps the index until the MSRC data changes. Between
  // them the first run's alerts are removed, so both write the same alerts into an empty table.
  let cpuMs = 0;
  const timed = async () => {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = (await svc.run('cli')) as AlertRunReport;
    const ms = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    cpuMs = Math.round((c1.user + c1.system) / 1000);
    clearInterval(sampler);
    return { r, ms, rssBefore, peak: Math.max(peak, process.memoryUsage().rss) };
  };
  const cold = await timed();
  await store.pool.query(`TRUNCATE alerts, alert_cves CASCADE`);
  await store.pool.query(`DELETE FROM alert_runs WHERE id = $1`, [cold.r.run_id]);
  await store.pool.query(`VACUUM ANALYZE alerts`);
  const warm = await timed();
  const r = warm.r;
  const ms = warm.ms;
  const rssBefore = warm.rssBefore;
  const peak = Math.max(cold.peak, warm.peak);
  const byMatch = await store.pool.query(`SELECT match_type, count(*)::int AS n FROM alerts GROUP BY 1 ORDER BY 1`);
  console.log(
    JSON.stringify({
      ...shape,
      run_ms: Math.round(ms),
      node_cpu_ms: cpuMs,
      run_ms_first_with_index_build: Math.round(cold.ms),
      alerts_first_run: cold.r.alerts_stored,
      alerts_written: r.alerts_stored,
      alerts_per_org: Math.round(r.alerts_stored / Math.max(1, Number(shape.organizations))),
      cves_matched: r.cves,
      alerts_by_match: Object.fromEntries(
        byMatch.rows.map((x: { match_type: string; n: number }) => [x.match_type, x.n]),
      ),
      rss_mb_before: mb(rssBefore),
      rss_mb_peak: mb(peak),
      target: 'run_ms <= 2000',
    }),
  );
} finally {
  await drop();
}
