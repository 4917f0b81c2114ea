// The server-rendered status page of GET /api/v1/health for browsers (spec §4.3): the overall banner and the
// per-service badges are public; corpus counts, database size, disk and pipeline timings only for signed-in
// members. It refreshes itself every 30 seconds with a meta refresh, so it needs no JavaScript.
import type { HealthData } from '../domain/health.ts';

const esc = (v: string | number | boolean | null | undefined) => String(v ?? '—').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** True when the client prefers HTML over JSON (browsers); JSON stays the default for API clients. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = -1;
  let json = -1;
  for (const [i, part] of accept.split(',').entries()) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    // Rank by q, then by position (earlier wins).
    const rank = q * 1000 - i;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, rank);
    if (type === 'application/json') json = Math.max(json, rank);
  }
  return html > json;
}

function badge(label: string, value: string): string {
  const good = ['operational', 'success', 'connected', 'healthy'].includes(value);
  const bad = ['failed', 'unavailable', 'degraded'].includes(value);
  const cls = good ? 'ok' : bad ? 'bad' : 'neutral';
  return `<li class="badge ${cls}"><span>${esc(label)}</span><strong>${esc(value)}</strong></li>`;
}

export function renderStatusPage(h: HealthData, opts: { details: boolean; version: string; environment: string; generatedAt: Date; warnings?: readonly string[] }): string {
  const banner = h.status === 'healthy' ? 'All systems operational' : 'Degraded: one or more components are impaired';
  const services = [
    badge('API', h.services.api),
    badge('Database', h.database),
    badge('Enricher', h.services.enricher),
    badge('Renderer', h.services.renderer),
    badge('Alerts', h.services.alerts),
  ].join('\n      ');
  let details = '<p class="note">Sign in to see corpus counts, database size, disk usage and pipeline timings.</p>';
  if (opts.details) {
    const stages = Object.entries<HealthData['pipeline']['ingest']>(h.pipeline).map(([name, s]) =>
      `<tr><th>${esc(name)}</th><td>${esc(s.status)}</td><td>${esc(s.last_run)}</td><td>${esc(s.rows)}</td><td>${esc(s.duration_sec)}</td><td>${esc(s.hours_since)}</td></tr>`).join('\n        ');
    details = `<h2>Corpus</h2>
    <table>
      <tr><th>Total CVEs</th><td>${esc(h.counts.total_cves)}</td></tr>
      <tr><th>Alert-ready</th><td>${esc(h.counts.alert_ready)}</td></tr>
      <tr><th>Pending enrichment</th><td>${esc(h.counts.pending_enrichment)}</td></tr>
      <tr><th>Rendered</th><td>${esc(h.counts.rendered)}</td></tr>
      <tr><th>Database size (MB)</th><td>${esc(h.db_size_mb)}</td></tr>
      <tr><th>Disk free (GB)</th><td>${esc(h.disk_free_gb)}</td></tr>
    </table>
    <h2>Pipeline</h2>
    <table>
      <tr><th>Stage</th><th>Status</th><th>Last run</th><th>Rows</th><th>Duration (s)</th><th>Hours since</th></tr>
        ${stages}
    </table>`;
  }
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="refresh" content="30">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Vulnintel status: ${esc(h.status)}</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 52rem; padding: 0 1rem; color: #1b1f24; }
    .banner { padding: 1rem 1.25rem; border-radius: 6px; font-size: 1.25rem; font-weight: 600; }
    .banner.healthy { background: #dff5e1; color: #11602a; } .banner.degraded { background: #fde2e1; color: #8a1c14; }
    ul.badges { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5rem; }
    .badge { border-radius: 4px; padding: .35rem .7rem; display: flex; gap: .5rem; }
    .ok { background: #dff5e1; } .bad { background: #fde2e1; } .neutral { background: #eceff3; }
    table { border-collapse: collapse; margin: .5rem 0 1.5rem; } th, td { text-align: left; padding: .25rem .75rem .25rem 0; }
    .note, footer { color: #57606a; }
    .warning { margin: 1rem 0; padding: .75rem 1rem; border-radius: 6px; background: #fff4d6; color: #6b4b00; }
  </style>
</head>
<body>
  <main>
    <h1>Vulnintel status</h1>
    <div class="banner ${esc(h.status)}" role="status">${esc(banner)}</div>
    ${(opts.warnings ?? []).map((w) => `<div class="warning" role="alert">${esc(w)}</div>`).join('\n    ')}
    <ul class="badges">
      ${services}
    </ul>
    ${details}
  </main>
  <footer>Version ${esc(opts.version)} · ${esc(opts.environment)} · generated ${esc(opts.generatedAt.toISOString())} · refreshes every 30 seconds</footer>
</body>
</html>
`;
}
