// GET /api/v1/health over HTTP (spec §2.9, §4.3): credentials, the real values, pipeline stages from
// ingest_runs, counts from the corpus, and the server-rendered status page.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedSession, TEST_INTERNAL_KEY, type TestApp } from '../helpers/app.ts';

const NOW = '2026-11-21T12:00:00Z';
const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const internal = { 'x-internal-key': TEST_INTERNAL_KEY };
let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let session: { cookie: string };

before(async () => {
  t = await testApp({
    now: NOW,
    env: { VULNINTEL_ENV: 'test-env', VULNINTEL_UPTIME_URL: 'https://status.vulnintel.test' },
  });
  org = await seedOrg(t.store, { name: 'Health Org' });
  session = await seedSession(t.store, org.orgId, org.memberId);
});
after(async () => {
  await t.close();
});

const get = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/api/v1/health', headers });

async function insertCve(id: string, sageStatus: 'ready' | 'pending') {
  await sql`INSERT INTO cves (cve_id, cve_year, cve_seq, bsid, title, bcs_score, kev_flagged, exploit_maturity, poc_available,
    has_public_exploit, patch_status, ics_relevant, ics_relevance, vendor_count, vendor_slugs, protocols, enriched_at, search, doc, doc_hash)
    VALUES (${id}, 2024, 1, 'BS-2024-000001-H', 'T', 5, false, 'NONE', false, false, 'unknown', false, 0, 0, '{}', '{}', now(),
    to_tsvector('simple', ''), ${JSON.stringify({ sage: { status: sageStatus } })}::jsonb, 'h')`.execute(t.store.db);
}

describe('credentials', () => {
  test('JSON without credentials → 401 AUTH_REQUIRED envelope', async () => {
    const r = await get();
    assert.equal(r.statusCode, 401);
    assert.equal(r.json().error.code, 'AUTH_REQUIRED');
    assert.equal(r.json().error.detail.error, 'auth_required');
    assert.match(r.json().error.message, /X-Internal-Key/);
  });
  test('wrong internal key → 401 (same length and different length)', async () => {
    for (const k of ['x'.repeat(TEST_INTERNAL_KEY.length), 'short', TEST_INTERNAL_KEY + 'x']) {
      const r = await get({ 'x-internal-key': k });
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().error.detail.error, 'invalid_internal_key');
    }
  });
  test('an API key is not accepted for the JSON → 403 session_required, with the allowance headers', async () => {
    const r = await get(org.auth);
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error.detail.error, 'session_required');
    assert.equal(r.headers['x-ratelimit-limit'], '25000');
  });
  test('a signed-in session gets the JSON', async () => {
    const r = await get(session);
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().data.database, 'connected');
  });
});

describe('payload', () => {
  test('empty database: real sizes, zero counts, stages never_run with nulls (nothing invented)', async () => {
    const r = await get(internal);
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['cache-control'], 'no-store');
    const { data, meta, api } = r.json();
    assert.equal(api.version, '1.0.0');
    assert.deepEqual(meta, { uptime_url: 'https://status.vulnintel.test', version: VERSION, environment: 'test-env' });
    assert.equal(data.status, 'healthy');
    assert.equal(data.database, 'connected');
    const never = { status: 'never_run', last_run: null, rows: null, hours_since: null, duration_sec: null };
    assert.deepEqual(data.pipeline, { ingest: never, enricher: never });
    assert.deepEqual(data.counts, { total_cves: 0, alert_ready: 0, pending_enrichment: 0, rendered: 0 });
    assert.deepEqual(data.services, {
      api: 'operational',
      enricher: 'never_run',
      renderer: 'operational',
      alerts: 'never_run',
    });
    const size = await sql<{ b: number }>`SELECT pg_database_size(current_database()) AS b`.execute(t.store.db);
    assert.ok(Math.abs(data.db_size_mb - size.rows[0].b / 1048576) < 1, `db_size_mb ${data.db_size_mb}`);
    assert.equal(typeof data.disk_free_gb, 'number');
    assert.ok(data.disk_free_gb > 0);
  });

  test('pipeline stages come from the latest ingest run per stage; a failed latest run degrades', async () => {
    await sql`INSERT INTO ingest_runs (stage, source, status, started_at, finished_at, rows) VALUES
      ('ingest', 'kev', 'succeeded', '2026-11-20T04:00:00Z', '2026-11-20T04:00:41.2Z', 1500),
      ('ingest', 'nvd', 'succeeded', '2026-11-21T04:00:00Z', '2026-11-21T04:00:41.2Z', 1842),
      ('enricher', NULL, 'succeeded', '2026-11-21T05:12:00Z', '2026-11-21T05:17:12.1Z', 1840)`.execute(t.store.db);
    const d = (await get(internal)).json().data;
    assert.deepEqual(d.pipeline.ingest, {
      status: 'success',
      last_run: '2026-11-21T04:00:00.000Z',
      rows: 1842,
      hours_since: 8,
      duration_sec: 41.2,
    });
    assert.deepEqual(d.pipeline.enricher, {
      status: 'success',
      last_run: '2026-11-21T05:12:00.000Z',
      rows: 1840,
      hours_since: 6.8,
      duration_sec: 312.1,
    });
    assert.equal(d.services.enricher, 'success');
    assert.equal(d.status, 'healthy');

    await sql`INSERT INTO ingest_runs (stage, status, started_at, finished_at, rows) VALUES ('enricher', 'failed', '2026-11-21T11:00:00Z', '2026-11-21T11:00:05Z', 3)`.execute(
      t.store.db,
    );
    const d2 = (await get(internal)).json().data;
    assert.equal(d2.status, 'degraded');
    assert.equal(d2.pipeline.enricher.status, 'failed');
    assert.equal(d2.services.enricher, 'failed');
    await sql`INSERT INTO ingest_runs (stage, status, started_at, rows) VALUES ('enricher', 'running', '2026-11-21T11:30:00Z', 10)`.execute(
      t.store.db,
    );
    const d3 = (await get(internal)).json().data;
    assert.deepEqual(d3.pipeline.enricher, {
      status: 'running',
      last_run: '2026-11-21T11:30:00.000Z',
      rows: 10,
      hours_since: 0.5,
      duration_sec: null,
    });
    assert.equal(d3.status, 'healthy');
  });

  test('counts: total, pending enrichment (analysis pending), alert-ready and rendered', async () => {
    await insertCve('CVE-2024-0001', 'ready');
    await insertCve('CVE-2024-0002', 'ready');
    await insertCve('CVE-2024-0003', 'pending');
    const d = (await get(internal)).json().data;
    assert.deepEqual(d.counts, { total_cves: 3, alert_ready: 2, pending_enrichment: 1, rendered: 3 });
  });
});

describe('status page (Accept: text/html)', () => {
  test("anonymous: public banner and badges, no details, refresh every 30 s on the reader's choice, no script", async () => {
    const r = await get({ accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.doesNotMatch(r.body, /http-equiv="refresh"/, 'no timed refresh unasked (WCAG 2.2.1)');
    assert.match(r.body, /<a href="\/api\/v1\/health\?refresh=30">Refresh every 30 seconds<\/a>/);
    const chosen = await t.app.inject({
      method: 'GET',
      url: '/api/v1/health?refresh=30',
      headers: { accept: 'text/html' },
    });
    assert.match(chosen.body, /<meta http-equiv="refresh" content="30"\/?>/);
    assert.match(chosen.body, /refreshes every 30 seconds \(<a href="\/api\/v1\/health">stop<\/a>\)/);
    assert.match(r.body, /class="banner (healthy|degraded)"/);
    assert.match(r.body, /<span>API<\/span><strong>operational<\/strong>/);
    assert.match(r.body, /<span>Database<\/span><strong>connected<\/strong>/);
    // No details; the only script is htmx from this origin's /static/ (nothing inline).
    assert.doesNotMatch(
      r.body,
      /Total CVEs|Database size|<script(?! src="\/static\/htmx\.[0-9a-f]{12}\.js" defer><\/script>)/,
    );
    assert.match(r.body, /Sign in to see/);
  });
  test('signed-in member and internal monitor: details included', async () => {
    for (const h of [session, internal]) {
      const r = await get({ accept: 'text/html', ...h });
      assert.equal(r.statusCode, 200);
      assert.match(r.body, /<th>Total CVEs<\/th><td>3<\/td>/);
      assert.match(r.body, /<th>Pending enrichment<\/th><td>1<\/td>/);
      assert.match(r.body, /<th>ingest<\/th><td>success<\/td>/);
      assert.doesNotMatch(r.body, /Sign in to see/);
    }
  });
  test('an API key on the page shows the public view only', async () => {
    const r = await get({ accept: 'text/html', ...org.auth });
    assert.equal(r.statusCode, 200);
    assert.doesNotMatch(r.body, /Total CVEs/);
  });
  test('Accept preferring JSON keeps JSON', async () => {
    const r = await get({ accept: 'application/json, text/html;q=0.5' });
    assert.equal(r.statusCode, 401);
    assert.equal(r.json().error.code, 'AUTH_REQUIRED');
  });
});
