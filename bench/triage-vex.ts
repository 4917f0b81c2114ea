// Triage at its target scale (docs/triage.md, docs/vex.md): one bulk decision over 10,000 (environment, CVE) pairs
// (≤ 2 s), and the VEX export of an environment of 2,000 assets and 20,000 (asset, CVE) decision pairs in each format
// (≤ 3 s, memory flat). Never part of `npm test`.
//
// Usage: npx tsx --expose-gc bench/triage-vex.ts   (a fresh database from the test template; dropped at the end;
//        --expose-gc lets it measure the live set while streaming: with it, the export timings include those GCs)
// Knobs: BENCH_ASSETS (2000), BENCH_PAIRS (20000; the export's decisions, each narrowed to one asset),
// BENCH_BULK (10000; distinct CVEs the bulk call selects), BENCH_ROUNDS (3 per export format), BENCH_ONLY=bulk (the
// bulk calls alone: bench/triage-bulk-compare.sh runs them against an earlier commit's, in turn).
//
// The setup, inserted with set-based SQL (only the calls are timed): environment "bulk" stores BENCH_ASSETS
// correlation results naming BENCH_BULK distinct CVEs, each on two assets; the bulk call selects them all with a
// filter (correlation_status affected, undecided) and sets not_affected with a justification and a comment, through
// the triage service (history rows included); then the same selection is set to affected, every decision replaced.
// Environment "export" has BENCH_ASSETS assets (a tenth with a CPE) and
// BENCH_PAIRS decisions, each narrowed to one asset, the four statuses in turn with their statements. Each export
// is consumed from the service's stream into a counter (as the route hands it to the socket); RSS and heap are
// sampled every 20 ms while it runs, the live heap after a full collection every 2,000 chunks, and the export is run again at a quarter of the decisions, so "flat" is a
// comparison, not a word.
import { performance } from 'node:perf_hooks';
import { freshDb } from '../test/helpers/db.ts';
import { sql } from '../src/store/kysely.ts';
import { createTriageService } from '../src/services/triage.ts';
import { createVexService, VEX_FORMATS } from '../src/services/vex.ts';
import { createOrganization, createMember } from '../src/store/identity.ts';

const ASSETS = Number(process.env.BENCH_ASSETS ?? 2000);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 20000);
const BULK = Number(process.env.BENCH_BULK ?? 10000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;

const t = await freshDb();
const db = t.store.db;
try {
  const org = await createOrganization(db, 'Bench Plant', 'professional');
  const member = await createMember(db, org.id, 'owner@bench.example.test', 'owner', 'Owner');
  const env = async (name: string) =>
    (
      await sql<{
        id: number;
      }>`INSERT INTO environments (org_id, name) VALUES (${org.id}, ${name}) RETURNING id::float8 AS id`.execute(db)
    ).rows[0].id;
  const bulkEnv = await env('bulk');
  const exportEnv = await env('export');
  const cve = (i: number) => `CVE-2099-${String(100000 + i)}`;

  // Bulk environment: asset a gets CVEs a*k .. (each CVE on two assets).
  const perAsset = Math.ceil((BULK * 2) / ASSETS);
  await sql`INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
    SELECT ${org.id}, ${bulkEnv}, 'asset-' || a, jsonb_build_object('vendor', 'Siemens', 'product', 'SIMATIC S7-1500', 'version', '2.9'),
      jsonb_build_object('cves', (SELECT jsonb_agg(jsonb_build_object('cve_id', 'CVE-2099-' || (100000 + ((a * ${perAsset} / 2 + k) % ${BULK})),
        'status', 'affected', 'severity', 'high', 'known_exploited', false, 'cvss', jsonb_build_object('vector', 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')))
        FROM generate_series(0, ${perAsset - 1}) k)), 'bench'
    FROM generate_series(0, ${ASSETS - 1}) a`.execute(db);

  // Export environment: assets, and PAIRS decisions each narrowed to one asset.
  await sql`INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
    SELECT ${org.id}, ${exportEnv}, 'plc-' || a, jsonb_build_object('vendor', 'Siemens', 'product', 'SIMATIC S7-1500', 'version', '2.9.' || (a % 7))
      || CASE WHEN a % 10 = 0 THEN jsonb_build_object('cpe', 'cpe:2.3:o:siemens:simatic_s7-1500_cpu_firmware:2.9:*:*:*:*:*:*:*') ELSE '{}'::jsonb END,
      '{"cves":[]}'::jsonb, 'bench'
    FROM generate_series(0, ${ASSETS - 1}) a`.execute(db);
  await sql`INSERT INTO triage_decisions (org_id, environment_id, cve_id, status, justification, impact_statement, action_statement, due_date, asset_ids, source)
    SELECT ${org.id}, ${exportEnv}, 'CVE-2099-' || (100000 + i),
      (ARRAY['not_affected', 'affected', 'fixed', 'under_investigation'])[i % 4 + 1],
      CASE WHEN i % 4 = 0 THEN 'vulnerable_code_not_in_execute_path' END,
      CASE WHEN i % 4 IN (0, 2) THEN 'The web server of the CPU is switched off on every PLC of the line.' END,
      CASE WHEN i % 4 = 1 THEN 'Segmented behind the cell firewall; patch at the March outage' END,
      CASE WHEN i % 4 = 1 THEN DATE '2027-03-15' END,
      ARRAY['plc-' || (i % ${ASSETS})], 'api'
    FROM generate_series(0, ${PAIRS - 1}) i`.execute(db);
  await sql`ANALYZE`.execute(db);

  const triage = createTriageService(db);
  const writer = { orgId: org.id, memberId: member.id, email: 'owner@bench.example.test', keyId: null, keyStart: null };
  const t0 = performance.now();
  const r = await triage.bulk(writer, bulkEnv, {
    filter: { correlation_status: ['affected'], decision: ['none'] },
    decision: {
      status: 'not_affected',
      justification: 'inline_mitigations_already_exist',
      impact_statement: 'The cell network is reached only through the cell firewall.',
    },
    comment: 'Cell firewall review',
  });
  const bulkMs = performance.now() - t0;
  console.log(`bulk: ${r.matched} CVEs selected, ${r.created} decisions created in ${Math.round(bulkMs)} ms`);
  // The same selection again, every CVE now decided: each decision replaced (its history row with the one before).
  const t1 = performance.now();
  const again = await triage.bulk(writer, bulkEnv, {
    filter: { correlation_status: ['affected'] },
    decision: {
      status: 'affected',
      action_statement: 'Segmented behind the cell firewall; patch at the March outage',
      due_date: '2027-03-15',
    },
    comment: 'Outage plan',
  });
  console.log(
    `bulk replace: ${again.matched} CVEs selected, ${again.updated} decisions replaced in ${Math.round(performance.now() - t1)} ms`,
  );
  if (process.env.BENCH_ONLY !== 'bulk') {
    const vex = createVexService(db, 'https://vulnintel.example');
    async function exportOnce(format: (typeof VEX_FORMATS)[number], limitDecisions: number | null, probe = false) {
      if (limitDecisions !== null)
        await sql`DELETE FROM triage_decisions WHERE org_id = ${org.id} AND environment_id = ${exportEnv} AND cve_id >= ${cve(limitDecisions)}`.execute(
          db,
        );
      global.gc?.();
      const base = process.memoryUsage();
      let peakRss = base.rss;
      let peakHeap = base.heapUsed;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      }, 20);
      const s = performance.now();
      const g = await vex.export(format, { orgId: org.id, orgName: 'Bench Plant' }, exportEnv, new Date());
      if (typeof g === 'string') throw new Error(g);
      let bytes = 0;
      let n = 0;
      let liveGrowth = 0;
      for await (const chunk of g) {
        bytes += Buffer.byteLength(chunk);
        // The live set while streaming: the heap right after a full collection, every 2,000 chunks (--expose-gc).
        if (probe && global.gc && ++n % 2000 === 0) {
          global.gc();
          liveGrowth = Math.max(liveGrowth, process.memoryUsage().heapUsed - base.heapUsed);
        }
      }
      const ms = performance.now() - s;
      clearInterval(sampler);
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
      return { ms, bytes, rssGrowth: peakRss - base.rss, heapGrowth: peakHeap - base.heapUsed, liveGrowth };
    }
    for (const format of VEX_FORMATS) {
      const runs = [];
      for (let i = 0; i < ROUNDS; i++) runs.push(await exportOnce(format, null));
      runs.sort((a, b) => a.ms - b.ms);
      const med = runs[Math.floor(runs.length / 2)];
      // One more, untimed, that measures the live set while streaming.
      runs.push(await exportOnce(format, null, true));
      console.log(
        `${format}: ${PAIRS} decisions, ${ASSETS} assets: median ${Math.round(med.ms)} ms (${runs
          .slice(0, ROUNDS)
          .map((x) => Math.round(x.ms))
          .join(
            ', ',
          )}), ${mb(med.bytes)} MB written, peak growth RSS ${mb(Math.max(...runs.map((x) => x.rssGrowth)))} MB, heap ${mb(Math.max(...runs.map((x) => x.heapGrowth)))} MB, live set after GC ${mb(Math.max(...runs.map((x) => x.liveGrowth)))} MB`,
      );
    }
    // The same exports at a quarter of the decisions: memory growth should not follow the number of decisions.
    for (const format of VEX_FORMATS) {
      const q = await exportOnce(format, Math.floor(PAIRS / 4), true);
      console.log(
        `${format}: ${Math.floor(PAIRS / 4)} decisions: ${Math.round(q.ms)} ms (with the GC probes), ${mb(q.bytes)} MB written, peak growth RSS ${mb(q.rssGrowth)} MB, heap ${mb(q.heapGrowth)} MB, live set after GC ${mb(q.liveGrowth)} MB`,
      );
    }
  }
} finally {
  await t.drop();
}
