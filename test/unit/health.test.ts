import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildHealth, stageView } from '../../src/domain/health.ts';
import { prefersHtml, renderStatusPage } from '../../src/http/status-page.ts';

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

test('stageView: durations and ages from the run record', () => {
  const v = stageView({ stage: 'ingest', status: 'succeeded', started_at: new Date('2026-11-21T09:00:00Z'), finished_at: new Date('2026-11-21T09:00:30.04Z'), rows: 7 }, now);
  assert.deepEqual(v, { status: 'success', last_run: '2026-11-21T09:00:00.000Z', rows: 7, hours_since: 3, duration_sec: 30 });
});

test('the status page escapes every value it prints', () => {
  fc.assert(fc.property(fc.string(), (s) => {
    const h = buildHealth({ now, db: { sizeBytes: 1, runs: [], totalCves: 0, pendingEnrichment: 0 }, diskFreeBytes: null });
    const page = renderStatusPage(h, { details: true, version: s, environment: s, generatedAt: now });
    const inner = page.slice(page.indexOf('<footer>') + 8, page.indexOf('</footer>'));
    // Escaped text never contains markup characters, so generated strings cannot open a tag or an attribute.
    assert.doesNotMatch(inner, /[<>"']/);
    assert.equal(page.match(/<footer>/g)!.length, 1);
  }));
});
