// The signed-in web app's pages at their target scale (docs/web.md "Performance"): an organization of 2,000 stored
// nameplate assets and 50 Windows hosts in 5 environments, on the 367k corpus. Per page:
//   server time: BENCH_ROUNDS requests of each page, one client, pages taken in turn each round (so load from
//                other work spreads over all pages alike); the server is this file in `serve` mode (the app as
//                src/app.ts builds it, in a child process), which times each request from its arrival to the
//                last byte written (Node's 'request' to the response's 'finish') and reports it on stdout: p50, p95;
//   weight:      the page as sent to a browser that accepts gzip and br, plus every same-origin script and
//                stylesheet it references (as sent, compressed), and the page's HTML compressed by gzip and br for
//                comparison;
//   origins:     every resource the page loads (script, stylesheet, image, frame, form target, CSS url()) must be
//                same-origin: a third-party one is listed and fails the run.
// Seeding (not timed), into DATABASE_URL (a writable copy of the benchmark database, never vi_bench itself):
//   nameplates: 2,000 distinct products of the stored CISA ICS CSAF and CVE Record 5 ranges (real vendor and product
//               names as the advisories spell them), versions at a stated bound, inside, outside or missing;
//   Windows:    the 10 real hosts of test/fixtures/web/windows-hosts.csv (MSRC builds and KBs) in each environment;
//   with them a watchlist, two webhooks (one disabled), 300 alerts over the last 10 days naming the environments'
//   affected assets, 40 decisions and 30 days of exposure snapshots, so every page has what a team's week puts there.
//   The organization is named `pages-bench`; a run deletes an earlier run's first.
//
//   createdb -h 127.0.0.1 -U postgres -T vi_bench vi_web_big
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/vi_web_big nice -n 10 node --import tsx bench/pages.ts
// Knobs: BENCH_ROUNDS (40), BENCH_ASSETS (2000), BENCH_ENVS (5), BENCH_REUSE=1 (measure an earlier run's organization
// again instead of seeding anew). Prints one JSON document. Never part of `npm test`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { brotliCompressSync, gzipSync, constants as zc } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import { sql } from '../src/store/kysely.ts';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/app.ts';
import { buildServices } from '../src/services/index.ts';
import { systemClock } from '../src/lib/clock.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { createOrganization, createMember } from '../src/store/identity.ts';
import { csvRowToHostRecord } from '../src/domain/windows/validate.ts';
import { parseViewOptions } from '../src/domain/windows/view.ts';
import { DEFAULT_OPTIONS } from '../src/services/correlation-answer.ts';
import { addDays, utcDay } from '../src/domain/exposure.ts';
import { seedSession } from '../test/helpers/app.ts';
import type { Principal } from '../src/services/identity.ts';
import { pct, randomPort, waitUp } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_web_big';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 2000);
const ENVS = Number(process.env.BENCH_ENVS ?? 5);
const ORG = 'pages-bench';
const TARGET_MS = 50;
const OVERVIEW_MS = 150;
const WEIGHT_KB = 100;
const env = {
  DATABASE_URL: url,
  VULNINTEL_PUBLIC_URL: 'http://vulnintel.bench',
  VULNINTEL_AUTO_IMPORT: 'false',
  LOG_LEVEL: 'silent',
  VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
  VULNINTEL_WEBHOOK_EGRESS_ALLOW: 'hooks.example.com',
};

/** The app in this process, each request timed from its arrival to its last byte; `T <x-bench-id> <ms>` on stdout. */
async function serve() {
  const store = openStore(url);
  const app = await buildApp({ config: loadConfig(env), store, clock: systemClock });
  await app.ready();
  app.server.prependListener('request', (req, res) => {
    const id = req.headers['x-bench-id'];
    if (typeof id !== 'string') return;
    const t0 = performance.now();
    res.once('finish', () => process.stdout.write(`T ${id} ${(performance.now() - t0).toFixed(3)}\n`));
  });
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => store.close())
      .finally(() => process.exit(0));
  });
}

interface Plate {
  asset_id: string;
  vendor: string;
  product: string;
  version?: string;
}

/** ASSETS nameplates from the stored CSAF (four in five) and CVE Record 5 ranges, deterministic (md5 order). */
async function nameplates(store: Store): Promise<Plate[]> {
  const pick = async (source: string, n: number) =>
    (
      await sql<{ vendor: string; product: string; lo: string | null; hi: string | null }>`
    SELECT min(range->>'vendor') AS vendor, min(range->>'product') AS product,
      min(coalesce(range->>'version', range->'start'->>'version')) AS lo, max(range->'end'->>'version') AS hi
    FROM cve_range_rows WHERE source = ${source} AND range->>'status' = 'affected'
    GROUP BY vendor_slug, product_key ORDER BY md5(vendor_slug || product_key) LIMIT ${n}`.execute(store.db)
    ).rows;
  // A corpus without CVE Record 5 ranges (a small development database) takes them all from CSAF.
  const cve5 = await pick('cve5', ASSETS - Math.round(ASSETS * 0.8));
  const rows = [...(await pick('csaf', ASSETS - cve5.length)), ...cve5];
  if (rows.length < ASSETS) throw new Error(`the corpus holds ${rows.length} products with ranges; ${ASSETS} wanted`);
  return rows.map((r, i) => {
    const version = [r.hi, r.lo, '99.0', null][i % 4] ?? null;
    return {
      asset_id: `np-${String(i + 1).padStart(4, '0')}`,
      vendor: r.vendor.slice(0, 200),
      product: r.product.slice(0, 200),
      ...(version ? { version: version.slice(0, 100) } : {}),
    };
  });
}

async function seed(store: Store) {
  const config = loadConfig(env);
  const svc = buildServices({ config, store, clock: systemClock, warn: () => {} });
  try {
    await sql`DELETE FROM organizations WHERE name = ${ORG}`.execute(store.db);
    const org = await createOrganization(store.db, ORG, 'enterprise');
    const email = `owner@${org.id}.bench.test`;
    const m = await createMember(store.db, org.id, email, 'owner', 'Owner');
    await sql`UPDATE organizations SET cap_overrides = '{"assets": -1, "environments": -1}'::jsonb WHERE id = ${org.id}`.execute(
      store.db,
    );
    const principal = {
      via: 'session',
      orgId: org.id,
      orgName: ORG,
      memberId: m.id,
      email,
      name: 'Owner',
      memberSince: new Date(),
      role: 'owner',
      tier: 'enterprise',
      keyId: null,
      keyStart: null,
      kind: 'session',
      scopes: ['read', 'write'],
    } as Principal;
    const plates = await nameplates(store);
    const hostRows = parseCsv(readFileSync(new URL('../test/fixtures/web/windows-hosts.csv', import.meta.url)), {
      columns: true,
    }) as Record<string, string>[];
    const view = parseViewOptions({}, { fromText: true, includeClearedDefault: false });
    if (!view.ok) throw new Error('view options');
    const envs: { id: number; name: string }[] = [];
    const per = Math.ceil(plates.length / ENVS);
    for (let e = 0; e < ENVS; e++) {
      const name = `Plant ${String.fromCharCode(65 + e)}`;
      const created = await svc.environments.create(org.id, { name, description: `Bench plant ${e + 1}` });
      envs.push({ id: created.id, name });
      const mine = plates.slice(e * per, (e + 1) * per);
      for (let i = 0; i < mine.length; i += 200) {
        const r = await svc.assets.correlate({
          principal,
          requestId: `pages-bench-${e}-${i}`,
          assets: mine.slice(i, i + 200),
          environmentId: created.id,
          options: DEFAULT_OPTIONS,
        });
        if (r.rejected.length) throw new Error(`assets refused: ${JSON.stringify(r.rejected[0])}`);
      }
      const hosts = hostRows.map((h) => csvRowToHostRecord({ ...h, asset_id: `${h.asset_id}-${e + 1}` }));
      await svc.windows.correlate({
        orgId: org.id,
        requestId: `pages-bench-win-${e}`,
        environmentId: created.id,
        hosts,
        software: [],
        options: view.options,
        wholeFile: true,
      });
    }
    // The affected (asset, CVE) pairs of each environment: what the alerts and decisions name.
    const affected = new Map<number, { asset_id: string; product: string; cve_id: string; reason: string }[]>();
    for (const e of envs) {
      const r = await svc.assets.results({
        principal,
        environmentId: e.id,
        assetId: null,
        page: 1,
        perPage: 500,
        options: DEFAULT_OPTIONS,
      });
      const pairs = [];
      for (let i = 0; i < r.count; i++) {
        const a = r.answer(i);
        for (const d of a.listed)
          if (d.v.status === 'affected')
            pairs.push({ asset_id: a.asset.asset_id, product: a.asset.product, cve_id: d.cve_id, reason: d.v.reason });
      }
      affected.set(e.id, pairs);
    }
    // Watchlist: the vendors of the first assets, two protocols.
    const vendors = [...new Set(plates.map((p) => p.vendor))].slice(0, 10);
    for (const v of vendors)
      await svc.watchlists.add(org.id, m.id, { entity_type: 'vendor', entity_id: v }).catch(() => undefined);
    for (const p of ['modbus', 'profinet'])
      await svc.watchlists.add(org.id, m.id, { entity_type: 'protocol', entity_id: p });
    const actor = { orgId: org.id, tier: 'enterprise' as const };
    const hooks = [];
    for (const label of ['Plant SOC', 'Integrator']) {
      const h = await svc.webhooks.create(actor, {
        label,
        url: `https://hooks.example.com/${label.replace(' ', '-').toLowerCase()}`,
      });
      hooks.push(h.webhook.id);
    }
    await sql`UPDATE webhooks SET enabled = false, disabled_reason = 'consecutive_failures', disabled_at = now(), consecutive_failures = 10 WHERE id = ${hooks[1]}`.execute(
      store.db,
    );
    // 300 alerts over the last 10 days, one run a day: each names an environment and its affected assets.
    const now = Date.now();
    let alerts = 0;
    for (let day = 0; day < 10; day++) {
      const run = (
        await sql<{
          id: string;
        }>`INSERT INTO alert_runs (from_seq, to_seq, status, trigger, started_at, finished_at) VALUES (0, 0, 'completed', 'cli', now(), now()) RETURNING id`.execute(
          store.db,
        )
      ).rows[0].id;
      const at = new Date(now - day * 86_400_000 - 3_600_000).toISOString();
      const seen = new Set<string>();
      for (const e of envs) {
        const pairs = affected.get(e.id)!;
        for (let k = 0; k < 6 && pairs.length; k++) {
          const first = pairs[(day * 6 + k) % pairs.length];
          if (seen.has(first.cve_id)) continue;
          seen.add(first.cve_id);
          const hits = pairs.filter((p) => p.cve_id === first.cve_id).slice(0, 20);
          const matches = hits.map((h) => ({
            entity_type: 'environment',
            entity_name: e.name,
            asset_id: h.asset_id,
            asset_kind: 'asset',
            status: 'affected',
            product: h.product,
            reason: h.reason,
          }));
          await sql`INSERT INTO alert_cves (run_id, cve_id, reasons, change_kinds, stamp, data) VALUES (${run}, ${first.cve_id}, ${['affected ranges changed']}, ${['ranges_changed']}, ${at}, ${JSON.stringify({ cve_id: first.cve_id })}::jsonb)
            ON CONFLICT DO NOTHING`.execute(store.db);
          await sql`INSERT INTO alerts (org_id, run_id, cve_id, sage_priority, match_type, match_name, payload, matches, assets_affected, created_at)
            VALUES (${org.id}, ${run}, ${first.cve_id}, ${['PATCH NOW', 'PATCH NEXT', 'MONITOR'][k % 3]}, 'environment', ${e.name}, NULL, ${JSON.stringify(matches)}::jsonb, ${hits.length}, ${at})`.execute(
            store.db,
          );
          alerts++;
        }
      }
    }
    // Decisions: 8 per environment, on its affected CVEs.
    const writer = { orgId: org.id, memberId: m.id, email, keyId: null, keyStart: null };
    let decided: { env: number; cve: string } | null = null;
    for (const e of envs) {
      const cves = [...new Set(affected.get(e.id)!.map((p) => p.cve_id))].slice(0, 8);
      for (const c of cves) {
        await svc.triage.set(writer, e.id, c, {
          status: 'affected',
          action_statement: 'Update at the next planned outage',
          due_date: utcDay(new Date(now + 30 * 86_400_000)),
          comment: 'Checked with the line engineer',
        } as never);
        decided ??= { env: e.id, cve: c };
      }
    }
    // Exposure history: today's snapshot through the service, then 29 earlier days of the same figures.
    await svc.exposure.snapshotAll();
    const today = utcDay(new Date());
    await sql`INSERT INTO exposure_snapshots (org_id, environment_id, day, taken_at, figures)
      SELECT s.org_id, s.environment_id, ${today}::date - g, now(), s.figures FROM exposure_snapshots s, generate_series(1, 29) g
      WHERE s.org_id = ${org.id} AND s.day = ${today}::date ON CONFLICT DO NOTHING`.execute(store.db);
    void addDays;
    await sql`ANALYZE asset_correlations`.execute(store.db);
    const session = await seedSession(store, org.id, m.id);
    const largest = envs[0];
    const pairs = affected.get(largest.id)!;
    return {
      orgId: org.id,
      envs,
      session,
      decided,
      hookId: hooks[0],
      alerts,
      plates: plates.length,
      cve: pairs[0]?.cve_id ?? 'CVE-2024-46886',
      vendor: plates[0].vendor,
      affectedPairs: [...affected.values()].reduce((n, p) => n + p.length, 0),
    };
  } finally {
    await svc.close();
  }
}

/** The resources a page loads (not its links): script src, stylesheet and icon href, img/iframe src, form action. */
function loaded(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<(script|img|iframe|source|embed)\b[^>]*?\bsrc="([^"]*)"/g)) out.push(m[2]);
  for (const m of html.matchAll(/<link\b[^>]*?\bhref="([^"]*)"/g)) out.push(m[1]);
  for (const m of html.matchAll(/<form\b[^>]*?\baction="([^"]*)"/g)) out.push(m[1]);
  for (const m of html.matchAll(/url\(\s*['"]?([^'")]+)/g)) out.push(m[1]);
  return out;
}
const foreign = (u: string, origin: string) => /^(https?:)?\/\//i.test(u) && !u.startsWith(origin);
const decode = (s: string) => s.replace(/&amp;/g, '&');

/** An earlier run's organization, as seed() returns it (BENCH_REUSE=1: seeding takes minutes on a busy machine). */
async function reuse(store: Store): Promise<Awaited<ReturnType<typeof seed>> | null> {
  const org = (await sql<{ id: string }>`SELECT id FROM organizations WHERE name = ${ORG}`.execute(store.db)).rows[0];
  if (!org) return null;
  const orgId = Number(org.id);
  const q = async <T>(text: ReturnType<typeof sql<T>>) => (await text.execute(store.db)).rows;
  const envs = (
    await q(sql<{ id: string; name: string }>`SELECT id, name FROM environments WHERE org_id = ${orgId} ORDER BY name`)
  ).map((e) => ({ id: Number(e.id), name: e.name }));
  const member = (await q(sql<{ id: string }>`SELECT id FROM members WHERE org_id = ${orgId} AND role = 'owner'`))[0];
  const decided = (
    await q(
      sql<{
        environment_id: string;
        cve_id: string;
      }>`SELECT environment_id, cve_id FROM triage_decisions WHERE org_id = ${orgId} ORDER BY environment_id, cve_id LIMIT 1`,
    )
  )[0];
  const hook = (await q(sql<{ id: string }>`SELECT id FROM webhooks WHERE org_id = ${orgId} ORDER BY id LIMIT 1`))[0];
  const counts = (
    await q(
      sql<{
        plates: number;
        alerts: number;
      }>`SELECT (SELECT count(*)::int FROM asset_correlations WHERE org_id = ${orgId}) AS plates, (SELECT count(*)::int FROM alerts WHERE org_id = ${orgId}) AS alerts`,
    )
  )[0];
  const vendor = (
    await q(
      sql<{
        v: string;
      }>`SELECT asset->>'vendor' AS v FROM asset_correlations WHERE org_id = ${orgId} ORDER BY asset_id LIMIT 1`,
    )
  )[0].v;
  return {
    orgId,
    envs,
    session: await seedSession(store, orgId, Number(member.id)),
    decided: { env: Number(decided.environment_id), cve: decided.cve_id },
    hookId: Number(hook.id),
    alerts: counts.alerts,
    plates: counts.plates,
    cve: decided.cve_id,
    vendor,
    affectedPairs: NaN,
  };
}

async function main() {
  const store = openStore(url);
  const t0 = performance.now();
  const seeded = (process.env.BENCH_REUSE === '1' ? await reuse(store) : null) ?? (await seed(store));
  const corpus = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves`.execute(store.db)).rows[0].n;
  await store.close();
  const seedSeconds = Math.round((performance.now() - t0) / 1000);
  const e = seeded.envs[0];
  const pages: { name: string; path: string; target: number }[] = [
    { name: 'overview', path: '/overview', target: OVERVIEW_MS },
    { name: 'explorer', path: '/cves', target: TARGET_MS },
    {
      name: 'explorer, filtered',
      path: `/cves?vendor=${encodeURIComponent(seeded.vendor)}&severity=CRITICAL%2CHIGH&sort_by=cvss`,
      target: TARGET_MS,
    },
    { name: 'explorer, search', path: '/cves?q=buffer+overflow', target: TARGET_MS },
    { name: 'environments', path: '/environments', target: TARGET_MS },
    { name: 'environment', path: `/environments/${e.id}`, target: TARGET_MS },
    { name: 'decisions', path: `/environments/${seeded.decided!.env}/decisions`, target: TARGET_MS },
    {
      name: 'decision',
      path: `/environments/${seeded.decided!.env}/decisions/${seeded.decided!.cve}`,
      target: TARGET_MS,
    },
    { name: 'alerts', path: '/alerts', target: TARGET_MS },
    { name: 'alerts, environment', path: `/alerts?environment_id=${e.id}`, target: TARGET_MS },
    { name: 'watchlist', path: '/watchlist', target: TARGET_MS },
    { name: 'webhooks', path: `/webhooks?id=${seeded.hookId}`, target: TARGET_MS },
    { name: 'account', path: '/account', target: TARGET_MS },
    { name: 'notifications', path: '/account/notifications', target: TARGET_MS },
    { name: 'training', path: '/training', target: TARGET_MS },
    { name: 'cve', path: `/cve/${seeded.cve}`, target: TARGET_MS },
    { name: 'status', path: '/api/v1/health', target: TARGET_MS },
  ];

  const port = randomPort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/pages.ts', 'serve'], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const serverMs = new Map<string, number>();
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const [tag, id, ms] = l.split(' ');
    if (tag === 'T') serverMs.set(id, Number(ms));
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUp(base);
    const headers = { cookie: seeded.session.cookie, accept: 'text/html' };
    let n = 0;
    const hit = async (path: string, extra: Record<string, string> = {}) => {
      const id = String(++n);
      const t = performance.now();
      const r = await fetch(base + path, { headers: { ...headers, ...extra, 'x-bench-id': id }, redirect: 'manual' });
      const body = Buffer.from(await r.arrayBuffer());
      const client = performance.now() - t;
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${body.toString().slice(0, 300)}`);
      for (let i = 0; i < 50 && !serverMs.has(id); i++) await new Promise((res) => setTimeout(res, 2));
      return { id, client, body, r };
    };
    // Warm-up (plans, caches, JIT); the first request of each page is its cold time (the overview: nothing kept yet).
    const cold = new Map<string, number>();
    for (const p of pages) {
      for (let i = 0; i < 3; i++) {
        const h = await hit(p.path);
        if (i === 0) cold.set(p.name, serverMs.get(h.id) ?? NaN);
      }
    }
    const times = new Map<string, { server: number[]; client: number[] }>(
      pages.map((p) => [p.name, { server: [], client: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const p of pages) {
        const h = await hit(p.path);
        times.get(p.name)!.server.push(serverMs.get(h.id) ?? NaN);
        times.get(p.name)!.client.push(h.client);
      }
    }
    const origin = base;
    const out = [];
    for (const p of pages) {
      // As a browser sends it (plain fetch would decompress: the Content-Length of an encoded answer is read instead).
      const sent = await fetch(base + p.path, { headers: { ...headers, 'accept-encoding': 'br, gzip' } });
      const raw = Buffer.from(await sent.arrayBuffer());
      const encoding = sent.headers.get('content-encoding');
      const sentBytes = encoding ? Number(sent.headers.get('content-length') ?? NaN) : raw.length;
      const html = raw.toString('utf8');
      const resources = loaded(html).map(decode);
      const third = resources.filter((u) => foreign(u, origin));
      let assets = 0;
      for (const u of new Set(resources.filter((x) => /^\/static\//.test(x)))) {
        const a = await fetch(base + u, { headers: { 'accept-encoding': 'gzip' } });
        await a.arrayBuffer();
        assets += Number(a.headers.get('content-length') ?? 0);
      }
      const t = times.get(p.name)!;
      const server = [...t.server].sort((a, b) => a - b);
      const client = [...t.client].sort((a, b) => a - b);
      const gz = gzipSync(raw, { level: 6 }).length;
      const br = brotliCompressSync(raw, { params: { [zc.BROTLI_PARAM_QUALITY]: 5 } }).length;
      const weight = (encoding ? sentBytes : Math.min(gz, br)) + assets;
      out.push({
        page: p.name,
        path: p.path.replace(/\d{6,}/g, '{id}'),
        first_ms: +cold.get(p.name)!.toFixed(1),
        server_p50_ms: +pct(server, 0.5).toFixed(1),
        server_p95_ms: +pct(server, 0.95).toFixed(1),
        client_p95_ms: +pct(client, 0.95).toFixed(1),
        target_ms: p.target,
        html_kb: +(raw.length / 1024).toFixed(1),
        sent_encoding: encoding ?? 'identity',
        sent_kb: +(sentBytes / 1024).toFixed(1),
        html_gzip_kb: +(gz / 1024).toFixed(1),
        html_br_kb: +(br / 1024).toFixed(1),
        static_kb: +(assets / 1024).toFixed(1),
        weight_kb: +(weight / 1024).toFixed(1),
        third_party: third,
        met: pct(server, 0.95) <= p.target && weight / 1024 <= WEIGHT_KB && third.length === 0,
      });
    }
    console.log(
      JSON.stringify(
        {
          corpus_cves: corpus,
          seeded: {
            environments: seeded.envs.length,
            nameplates: seeded.plates,
            windows_hosts: seeded.envs.length * 10,
            affected_pairs: seeded.affectedPairs,
            alerts: seeded.alerts,
            seed_s: seedSeconds,
          },
          rounds: ROUNDS,
          pages: out,
          third_party_anywhere: out.some((o) => o.third_party.length > 0),
          all_met: out.every((o) => o.met),
        },
        null,
        2,
      ),
    );
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') await serve();
else await main();
