import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildHealth, feedView, FEED_NAMES, FEED_STALE_HOURS, stageView } from '../../src/domain/health.ts';
import { SYNC_SOURCES } from '../../src/services/sync/sync.ts';
import { prefersHtml } from '../../src/http/status-page.ts';
import { renderStatusPage } from '../../src/http/web/status.tsx';

const now = new Date('2026-11-21T12:00:00Z');

test('prefersHtml: browsers get HTML, API clients and */* get JSON', () => {
  assert.equal(prefersHtml(undefined), false);
  assert.equal(prefersHtml('*/*'), false);
  assert.equal(prefersHtml('application/json'), false);
  assert.equal(prefersHtml('text/html'), true);
  assert.equal(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), true);
  assert.equal(prefersHtml('application/json, text/html'), false);
  assert.equal(prefersHtml('text/html;q=0.4, application/json;q=0.9'), false);
  assert.equal(prefersHtml('text/html;q=0, application/json;q=0.1'), false);
});

test('database unreachable: degraded, unavailable, counts and size null', () => {
  const h = buildHealth({ now, db: null, diskFreeBytes: 5 * 1024 ** 3 });
  assert.equal(h.status, 'degraded');
  assert.equal(h.database, 'unavailable');
  assert.deepEqual(h.counts, { total_cves: null, alert_ready: null, pending_enrichment: null, rendered: null });
  assert.equal(h.db_size_mb, null);
  assert.equal(h.disk_free_gb, 5);
  assert.equal(h.services.renderer, 'unavailable');
});

test('feeds: every synced feed, in the sync order; its age from the latest success; stale past 48 hours, at the boundary still fresh', () => {
  assert.deepEqual(
    [...FEED_NAMES],
    SYNC_SOURCES.map((s) => s.name),
  );
  assert.equal(buildHealth({ now, db: null, diskFreeBytes: null }).feeds, null);
  const at = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
  const fresh = feedView(
    { feed: 'kev', last_success: at(FEED_STALE_HOURS), last_attempt: at(1), last_status: 'failed' },
    now,
  );
  assert.deepEqual(fresh, {
    status: 'fresh',
    last_success: at(48).toISOString(),
    age_hours: 48,
    last_attempt: at(1).toISOString(),
    last_attempt_status: 'failed',
  });
  assert.equal(
    feedView({ feed: 'kev', last_success: at(FEED_STALE_HOURS + 0.1), last_attempt: at(1), last_status: 'failed' }, now)
      .status,
    'stale',
  );
  assert.deepEqual(feedView(undefined, now), {
    status: 'never_synced',
    last_success: null,
    age_hours: null,
    last_attempt: null,
    last_attempt_status: null,
  });
  const h = buildHealth({
    now,
    db: {
      sizeBytes: 1,
      runs: [],
      totalCves: 0,
      pendingEnrichment: 0,
      feeds: [{ feed: 'epss', last_success: at(2.25), last_attempt: at(2.25), last_status: 'succeeded' }],
    },
    diskFreeBytes: null,
  });
  assert.deepEqual(Object.keys(h.feeds!), [...FEED_NAMES]);
  assert.equal(h.feeds!.epss.age_hours, 2.3);
  assert.equal(h.feeds!.kev.status, 'never_synced');
  // A stale feed does not make the answer degraded (an offline plant is healthy, its corpus just older).
  assert.equal(h.status, 'healthy');
});

test('stageView: durations and ages from the run record', () => {
  const v = stageView(
    {
      stage: 'ingest',
      status: 'succeeded',
      started_at: new Date('2026-11-21T09:00:00Z'),
      finished_at: new Date('2026-11-21T09:00:30.04Z'),
      rows: 7,
    },
    now,
  );
  assert.deepEqual(v, {
    status: 'success',
    last_run: '2026-11-21T09:00:00.000Z',
    rows: 7,
    hours_since: 3,
    duration_sec: 30,
  });
});

test('the status page escapes every value it prints', () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      const h = buildHealth({
        now,
        db: { sizeBytes: 1, runs: [], totalCves: 0, pendingEnrichment: 0 },
        diskFreeBytes: null,
      });
      const page = renderStatusPage(h, { details: true, version: s, environment: s, generatedAt: now });
      const inner = page.slice(page.indexOf('<footer>') + 8, page.indexOf('</footer>'));
      // The footer ends with our own link (the reader asks for the refresh); the values come before it.
      const link = ' · <a href="/api/v1/health?refresh=30">Refresh every 30 seconds</a>';
      assert.ok(inner.endsWith(link), inner);
      const values = inner.slice(0, -link.length);
      // Escaped text never contains '<' (no tag can open) and reads back as the value printed.
      assert.doesNotMatch(values, /</);
      const text = values
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
      assert.equal(text, `Version ${s} · ${s} · generated ${now.toISOString()}`);
      assert.equal(page.match(/<footer>/g)!.length, 1);
    }),
  );
});

const run = (
  stage: 'ingest' | 'enricher',
  status: 'running' | 'succeeded' | 'failed',
  startedMinutesAgo: number,
  tookSec: number | null = 30,
  rows = 10,
) => ({
  stage,
  status,
  rows,
  started_at: new Date(now.getTime() - startedMinutesAgo * 60_000),
  finished_at: tookSec === null ? null : new Date(now.getTime() - startedMinutesAgo * 60_000 + tookSec * 1000),
});
const db = (o: Partial<NonNullable<Parameters<typeof buildHealth>[0]['db']>> = {}) => ({
  sizeBytes: 3 * 1024 * 1024,
  runs: [],
  totalCves: 100,
  pendingEnrichment: 7,
  ...o,
});

test('database connected, every stage succeeded: healthy, with counts, size and each service', () => {
  const h = buildHealth({
    now,
    db: db({
      runs: [run('ingest', 'succeeded', 90), run('enricher', 'succeeded', 60)],
      lastAlertRun: {
        status: 'completed',
        started_at: new Date(now.getTime() - 20 * 60_000),
        finished_at: new Date(now.getTime() - 19 * 60_000),
      },
    }),
    diskFreeBytes: null,
  });
  assert.equal(h.status, 'healthy');
  assert.equal(h.database, 'connected');
  assert.deepEqual(h.services, {
    api: 'operational',
    enricher: 'success',
    renderer: 'operational',
    alerts: 'operational',
  });
  assert.deepEqual(h.counts, { total_cves: 100, alert_ready: 93, pending_enrichment: 7, rendered: 100 });
  assert.equal(h.db_size_mb, 3);
  assert.equal(h.disk_free_gb, null);
  assert.deepEqual(h.pipeline.ingest, {
    status: 'success',
    last_run: new Date(now.getTime() - 90 * 60_000).toISOString(),
    rows: 10,
    hours_since: 1.5,
    duration_sec: 30,
  });
});

test('a failed stage makes it degraded (either stage); a stage never run is never_run; a running stage has no duration yet', () => {
  for (const failing of ['ingest', 'enricher'] as const) {
    const other = failing === 'ingest' ? 'enricher' : 'ingest';
    const h = buildHealth({
      now,
      db: db({ runs: [run(failing, 'failed', 5), run(other, 'succeeded', 5)] }),
      diskFreeBytes: 2 * 1024 ** 3,
    });
    assert.equal(h.status, 'degraded', failing);
    assert.equal(h.pipeline[failing].status, 'failed');
    assert.equal(h.disk_free_gb, 2);
  }
  const h = buildHealth({ now, db: db({ runs: [run('ingest', 'running', 1, null)] }), diskFreeBytes: null });
  assert.equal(h.status, 'healthy');
  assert.deepEqual(h.pipeline.ingest, {
    status: 'running',
    last_run: new Date(now.getTime() - 60_000).toISOString(),
    rows: 10,
    hours_since: 0,
    duration_sec: null,
  });
  assert.deepEqual(h.pipeline.enricher, {
    status: 'never_run',
    last_run: null,
    rows: null,
    hours_since: null,
    duration_sec: null,
  });
  assert.equal(h.services.enricher, 'never_run');
  assert.equal(h.services.alerts, 'never_run');
});

test('without the database: the enricher and alerts are unknown, the API operational', () => {
  const h = buildHealth({ now, db: null, diskFreeBytes: null });
  assert.deepEqual(h.services, { api: 'operational', enricher: 'unknown', renderer: 'unavailable', alerts: 'unknown' });
  assert.equal(h.pipeline.ingest.status, 'never_run');
});
