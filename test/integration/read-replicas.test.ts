// Corpus reads on a real streaming replica (DATABASE_REPLICA_URL; ADR 0098): a primary and a standby started from the
// project's PostgreSQL binaries on loopback (test/helpers/replica-cluster.ts). Reads go to the replica once it has
// applied the corpus version the primary reported; a replica that is paused, behind or stopped sends reads to the
// primary (never an older answer, never a 5xx) and makes health degraded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/app.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { feedDir } from '../helpers/ingest.ts';
import { startReplicaCluster, type ReplicaCluster } from '../helpers/replica-cluster.ts';

const INTERNAL = 'replica-test-internal-key-0123';
const quiet = { info() {}, warn() {} };
const nvd = (...ids: string[]) => ids.map((c) => fixture('nvd', `${c}.json`));

let cluster: ReplicaCluster;
let app: FastifyInstance;
let store: Store;
let work: Store;

before(async () => {
  cluster = await startReplicaCluster();
  store = openStore(cluster.primaryUrl, { statementTimeoutMs: 15000, max: 5 });
  work = openStore(cluster.primaryUrl, { max: 2 });
  // The first corpus, replayed by the replica before the app starts.
  await importPaths(work.db, [feedDir(nvd('CVE-2023-0228', 'CVE-2023-28489'))], { log: quiet });
  await cluster.caughtUp();
  const config = loadConfig({
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_REPLICA_URL: cluster.replicaUrl,
    VULNINTEL_REPLICA_CHECK_MS: '100',
    VULNINTEL_REPLICA_MAX_LAG_MS: '1500',
    VULNINTEL_INTERNAL_KEY: INTERNAL,
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
    VULNINTEL_SEARCH_INDEX: 'false',
    LOG_LEVEL: 'silent',
  });
  app = await buildApp({ config, store });
  await app.ready();
});

after(async () => {
  await app?.close();
  await store?.close();
  await work?.close();
  await cluster?.close();
});

async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

const served = () => app.services.replicas!.served();
const health = async () => {
  const r = await app.inject({ method: 'GET', url: '/api/v1/health', headers: { 'x-internal-key': INTERNAL } });
  assert.equal(r.statusCode, 200);
  return r.json().data as {
    status: string;
    replicas: { name: string; state: string; lag_ms: number | null; corpus_version: number | null }[];
  };
};
const detail = (id: string) => app.inject({ method: 'GET', url: `/api/v1/cves/${id}` });

async function onReplica(c: ReplicaCluster, q: string): Promise<{ n?: number }[]> {
  const cl = new pg.Client({ connectionString: c.replicaUrl });
  await cl.connect();
  try {
    return (await cl.query(q)).rows;
  } finally {
    await cl.end();
  }
}

test("corpus reads go to the replica once it has applied the primary's corpus version; health lists it streaming", async () => {
  await eventually('replica streaming', async () => (await health()).replicas[0].state === 'streaming');
  const h = await health();
  assert.equal(h.status, 'healthy');
  assert.equal(h.replicas[0].name, new URL(cluster.replicaUrl).host + '/vulnintel');
  assert.ok(!JSON.stringify(h.replicas).includes(new URL(cluster.replicaUrl).password), 'no password in health');
  const name = h.replicas[0].name;
  // The catalog, a list, a detail, a search: read on the replica, not on the primary.
  const before = served();
  for (const url of [
    '/api/v1/cves/CVE-2023-0228',
    '/api/v1/cves?per_page=10',
    '/api/v1/cves?q=overflow',
    '/api/v1/catalog/vendors',
    '/api/v1/cves/stats/summary',
  ]) {
    const r = await app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 200, url);
  }
  const after = served();
  assert.ok((after[name] ?? 0) - (before[name] ?? 0) >= 5, `replica reads: ${JSON.stringify(after)}`);
  assert.equal(after.primary ?? 0, before.primary ?? 0, 'no corpus read on the primary');
  const d = (await detail('CVE-2023-0228')).json();
  assert.equal(d.data.cve_id, 'CVE-2023-0228');
});

test('a read after an import sees the new corpus: on the primary while the replica lags, on the replica once it has applied it', async () => {
  const name = (await health()).replicas[0].name;
  assert.equal((await detail('CVE-2024-21338')).statusCode, 404);
  // The replica stops replaying WAL: it still answers, with the corpus before the import.
  await onReplica(cluster, 'SELECT pg_wal_replay_pause()');
  try {
    const primaryBefore = served().primary ?? 0;
    await importPaths(work.db, [feedDir(nvd('CVE-2022-45793', 'CVE-2024-21338'))], { log: quiet });
    // Told by the primary's notification, the reader never answers from the paused replica: the new CVE is there.
    await eventually('new CVE visible', async () => (await detail('CVE-2024-21338')).statusCode === 200);
    const onStandby = await onReplica(cluster, "SELECT count(*)::int AS n FROM cves WHERE cve_id = 'CVE-2024-21338'");
    assert.equal(onStandby[0].n, 0, 'the paused replica has not applied the import');
    const listed = (await app.inject({ method: 'GET', url: '/api/v1/cves?per_page=50' })).json();
    assert.ok(
      listed.data.some((c: { cve_id: string }) => c.cve_id === 'CVE-2024-21338'),
      'the list shows the import too',
    );
    assert.ok((served().primary ?? 0) > primaryBefore, 'read on the primary');
    // Past the configured lag, the replica is "behind" and health is degraded.
    await eventually('replica behind', async () => (await health()).replicas[0].state === 'behind');
    assert.equal((await health()).status, 'degraded');
  } finally {
    await onReplica(cluster, 'SELECT pg_wal_replay_resume()');
  }
  await eventually('replica streaming again', async () => {
    const h = await health();
    return h.replicas[0].state === 'streaming' && h.status === 'healthy';
  });
  // Caught up: reads are back on the replica, and see the import. Health's "streaming" comes from the same checker
  // round that learns the replica's applied corpus version, but the router may take one more round: every read on
  // the way answers with the import, and reads land on the replica again within the check interval.
  // Each try asks for a list not asked for before (not in the response cache), within the schema's bounds: per_page
  // 3–100 (the corpus's three CVEs on every page) under each of the three sorts, more tries than the wait allows.
  const SORTS = ['date', 'cvss', 'epss'];
  let tries = 0;
  await eventually('reads back on the replica', async () => {
    const before = served();
    const url = `/api/v1/cves?per_page=${3 + (tries % 98)}&sort_by=${SORTS[Math.floor(tries / 98) % SORTS.length]}`;
    tries++;
    const r = await app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 200);
    assert.ok(
      r.json().data.some((c: { cve_id: string }) => c.cve_id === 'CVE-2024-21338'),
      'every read sees the import',
    );
    return (served()[name] ?? 0) > (before[name] ?? 0) && (served().primary ?? 0) === (before.primary ?? 0);
  });
});

test('a stopped replica: reads fall back to the primary without a 5xx, health degraded; restarted, it serves again', async () => {
  const name = (await health()).replicas[0].name;
  await cluster.stopReplica();
  try {
    const urls = [
      '/api/v1/cves/CVE-2023-28489',
      '/api/v1/cves?per_page=5&severity=HIGH,CRITICAL,MEDIUM',
      '/api/v1/cves?q=overflow',
      '/api/v1/catalog/vendors',
      '/api/v1/cves/kev',
      '/api/v1/cves/stats/summary',
    ];
    // At once after the stop (the checker has not noticed yet) and later: every answer is the primary's, never a 5xx.
    for (let round = 0; round < 3; round++) {
      for (const url of urls) {
        const res = await app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
      }
    }
    assert.equal((await detail('CVE-2023-28489')).json().data.cve_id, 'CVE-2023-28489');
    await eventually('replica down', async () => (await health()).replicas[0].state === 'down');
    const h = await health();
    assert.equal(h.status, 'degraded');
    assert.equal(h.replicas[0].lag_ms, null);
  } finally {
    await cluster.startReplica();
  }
  await eventually('replica streaming after restart', async () => (await health()).replicas[0].state === 'streaming');
  await eventually('reads on the replica again', async () => {
    const before = served()[name] ?? 0;
    // An unknown id: never cached, so always read.
    assert.equal((await detail('CVE-2099-0001')).statusCode, 404);
    return (served()[name] ?? 0) > before;
  });
});
