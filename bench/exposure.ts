// Exposure history and plant reports at their target scale (docs/reports.md):
//   snapshot: the daily snapshot of 1,000 organizations × 5 environments (≤ 30 s), through the job's service
//             (services/exposure-history.ts snapshotAll), each environment holding BENCH_ASSETS stored assets;
//   report:   the plant report of one environment of 2,000 assets as PDF (≤ 5 s): the report built from the services
//             (plant-reports.ts build) and drawn (services/plant-report-pdf.ts), timed together.
// A fresh test database with the corpus of the test fixtures (real NVD, CSAF and KEV records, PROVENANCE.md); the
// assets are real products of that corpus at versions its ranges decide (affected, fixed, unknown), so every
// environment has open and KEV CVEs. Set up through the correlation service once, copied with set-based SQL; only
// the snapshot run and the report are timed. Never part of `npm test`.
//
// Usage: npx tsx bench/exposure.ts [snapshot|report|both]
// Knobs: BENCH_ORGS (1000), BENCH_ENVS (5 per organization), BENCH_ASSETS (4 per environment), BENCH_REPORT_ASSETS
// (2000), BENCH_ROUNDS (3 for the report; the snapshot runs once, twice with BENCH_ROUNDS ≥ 2).
import { performance } from 'node:perf_hooks';
import { freshDb } from '../test/helpers/db.ts';
import { importPaths } from '../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../test/helpers/ingest.ts';
import { fixture } from '../test/helpers/feeds.ts';
import { sql } from '../src/store/kysely.ts';
import { loadConfig } from '../src/config.ts';
import { buildServices } from '../src/services/index.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createOrganization, createMember } from '../src/store/identity.ts';
import { renderReportPdf } from '../src/services/plant-report-pdf.ts';
import { addDays, utcDay } from '../src/domain/exposure.ts';
import type { Principal } from '../src/services/identity.ts';

const MODE = process.argv[2] ?? 'both';
const ORGS = Number(process.env.BENCH_ORGS ?? 1000);
const ENVS = Number(process.env.BENCH_ENVS ?? 5);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 4);
const REPORT_ASSETS = Number(process.env.BENCH_REPORT_ASSETS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const quiet = { info() {}, warn() {} };
const mb = (n: number) => Math.round(n / 1048576);

/** Real products of the fixture corpus, at versions its ranges decide differently. */
const KINDS = [
  { vendor: 'Microsoft', product: 'Windows 10 22H2', version: '10.0.19045.1000' },
  { vendor: 'Siemens', product: 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)', version: 'V3.1.0' },
  { vendor: 'Siemens', product: 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)', version: 'V3.1.4' },
  { vendor: 'Microsoft', product: 'Windows 10', version: null },
  { vendor: 'Acme Automation', product: 'Line Controller', version: '2.0' },
];
const asset = (i: number) => ({ asset_id: `asset-${String(i).padStart(5, '0')}`, ...KINDS[i % KINDS.length] });

const db = await freshDb();
const config = loadConfig({
  DATABASE_URL: db.url,
  VULNINTEL_AUTO_IMPORT: 'false',
  LOG_LEVEL: 'silent',
  VULNINTEL_PUBLIC_URL: 'http://vulnintel.bench',
});
const svc = buildServices({ config, store: db.store, clock: systemClock, warn: () => {} });
try {
  await importPaths(
    db.store.db,
    [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES, fixture('kev', 'kev-cut.json')])],
    { log: quiet },
  );

  /** One organization with one environment whose assets are stored through the correlation service (not timed). */
  async function seedEnvironment(name: string, assets: number) {
    const org = await createOrganization(db.store.db, name, 'enterprise');
    const m = await createMember(db.store.db, org.id, `owner@${org.id}.bench.test`, 'owner', 'Owner');
    await sql`UPDATE organizations SET cap_overrides = '{"assets": -1, "environments": -1}'::jsonb WHERE id = ${org.id}`.execute(
      db.store.db,
    );
    const env = await svc.environments.create(org.id, { name: `${name} line 1`, description: null });
    const principal = {
      via: 'key',
      orgId: org.id,
      orgName: name,
      memberId: m.id,
      email: `owner@${org.id}.bench.test`,
      name: 'Owner',
      memberSince: new Date(),
      role: 'owner',
      tier: 'enterprise',
      keyId: null,
      keyStart: null,
      kind: 'standard',
      scopes: ['read', 'write'],
    } as unknown as Principal;
    for (let i = 0; i < assets; i += 500) {
      const batch = Array.from({ length: Math.min(500, assets - i) }, (_, k) => asset(i + k));
      const r = await svc.assets.correlate({
        principal,
        requestId: `bench-${i}`,
        assets: batch,
        environmentId: env.id,
        options: {
          include_not_affected: false,
          sort: 'priority',
          affected_only: false,
          known_exploited_only: false,
          fix_available_only: false,
          cve_page: null,
          cve_page_size: null,
        },
      });
      if (r.rejected.length) throw new Error(`assets refused: ${JSON.stringify(r.rejected[0])}`);
    }
    return { orgId: org.id, memberId: m.id, envId: env.id };
  }

  if (MODE === 'snapshot' || MODE === 'both') {
    const t0 = performance.now();
    const first = await seedEnvironment('Bench org 00000', ASSETS);
    // The other organizations and environments: copies of the first one's stored assets (set-based, not timed).
    await sql`INSERT INTO organizations (name, tier) SELECT 'Bench org ' || lpad(g::text, 5, '0'), 'enterprise' FROM generate_series(1, ${ORGS - 1}) g`.execute(
      db.store.db,
    );
    await sql`INSERT INTO environments (org_id, name) SELECT o.id, 'Line ' || e FROM organizations o, generate_series(1, ${ENVS}) e
      WHERE o.name LIKE 'Bench org %' AND o.id <> ${first.orgId}`.execute(db.store.db);
    await sql`INSERT INTO environments (org_id, name) SELECT ${first.orgId}, 'Line ' || e FROM generate_series(2, ${ENVS}) e`.execute(
      db.store.db,
    );
    await sql`INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
      SELECT e.org_id, e.id, a.asset_id, a.asset, a.result, 'bench-copy' FROM environments e
      CROSS JOIN (SELECT asset_id, asset, result FROM asset_correlations WHERE environment_id = ${first.envId}) a
      WHERE e.id <> ${first.envId}`.execute(db.store.db);
    // A decision in every environment, so the decision counts have something to count.
    await sql`INSERT INTO triage_decisions (org_id, environment_id, cve_id, status, justification, impact_statement)
      SELECT org_id, id, 'CVE-2024-49138', 'not_affected', 'vulnerable_code_not_in_execute_path', 'bench' FROM environments`.execute(
      db.store.db,
    );
    await sql`ANALYZE`.execute(db.store.db);
    const envs = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM environments`.execute(db.store.db)).rows[0].n;
    console.log(
      `setup: ${ORGS} organizations, ${envs} environments, ${ASSETS} assets each, ${Math.round((performance.now() - t0) / 1000)} s`,
    );
    for (let round = 1; round <= Math.max(1, Math.min(ROUNDS, 2)); round++) {
      const s = performance.now();
      const r = await svc.exposure.snapshotAll();
      const ms = performance.now() - s;
      const sample = (
        await sql<{
          figures: { open_cves: number; known_exploited: number; assets_exposed: number };
        }>`SELECT figures FROM exposure_snapshots LIMIT 1`.execute(db.store.db)
      ).rows[0].figures;
      console.log(
        `snapshot round ${round}: ${(ms / 1000).toFixed(1)} s for ${r.environments} environments (${r.failed} failed); ${(ms / r.environments).toFixed(2)} ms each; ` +
          `one environment: ${sample.open_cves} open CVEs, ${sample.known_exploited} KEV, ${sample.assets_exposed} exposed assets; RSS ${mb(process.memoryUsage().rss)} MB`,
      );
    }
  }

  if (MODE === 'report' || MODE === 'both') {
    const t0 = performance.now();
    const big = await seedEnvironment('Bench report org', REPORT_ASSETS);
    // Decisions taken in the period, and a month of snapshots for the trend.
    await sql`INSERT INTO triage_decision_history (org_id, environment_id, cve_id, action, actor_label, after)
      SELECT ${big.orgId}, ${big.envId}, 'CVE-2024-21338', 'set', 'bench', '{"status": "affected", "action_statement": "Patch at the next outage", "justification": null}'::jsonb
      FROM generate_series(1, 150)`.execute(db.store.db);
    const today = utcDay(new Date());
    for (let i = 30; i >= 1; i--) {
      await sql`INSERT INTO exposure_snapshots (org_id, environment_id, day, taken_at, figures)
        VALUES (${big.orgId}, ${big.envId}, ${addDays(today, -i)}::date, now(), ${JSON.stringify({ open_cves: 40 + (i % 7), known_exploited: 2, assets_exposed: 1200, windows_eol_hosts: 0 })}::jsonb)`.execute(
        db.store.db,
      );
    }
    console.log(`setup: one environment of ${REPORT_ASSETS} assets, ${Math.round((performance.now() - t0) / 1000)} s`);
    for (let round = 1; round <= ROUNDS; round++) {
      const s = performance.now();
      const r = await svc.reports.build(
        { orgId: big.orgId, orgName: 'Bench report org' },
        big.envId,
        { start: addDays(today, -30), end: addDays(today, 1) },
        null,
      );
      const built = performance.now();
      const pdf = await renderReportPdf(r!);
      const done = performance.now();
      console.log(
        `report round ${round}: ${((done - s) / 1000).toFixed(2)} s (build ${((built - s) / 1000).toFixed(2)} s, PDF ${((done - built) / 1000).toFixed(2)} s), ` +
          `${Math.round(pdf.length / 1024)} KB; ${r!.summary.open_cves} open CVEs, ${r!.summary.assets_exposed} exposed assets, ${r!.patch_first_total} to patch first, ${r!.decisions_total} decisions; RSS ${mb(process.memoryUsage().rss)} MB`,
      );
    }
  }
} finally {
  await svc.close();
  await db.drop();
}
