// The server-rendered status page of GET /api/v1/health for browsers (spec §4.3): the overall banner and the
// per-service badges are public; corpus counts, database size, disk and pipeline timings only for signed-in
// members. On the reader's choice (?refresh=30) it refreshes itself every 30 seconds with a meta refresh, so it needs
// no JavaScript; never unasked (WCAG 2.2.1: the reader controls a timed refresh).
import type { HealthData } from '../../domain/health.ts';
import { html, Layout, type Viewer, Scroll } from './layout.tsx';

const show = (v: string | number | boolean | null | undefined) => String(v ?? '—');

function Badge({ label, value }: { label: string; value: string }) {
  const good = ['operational', 'success', 'connected', 'healthy'].includes(value);
  const bad = ['failed', 'unavailable', 'degraded'].includes(value);
  return (
    <li class={good ? 'good' : bad ? 'bad' : 'neutral'}>
      <span>{label}</span>
      <strong>{value}</strong>
    </li>
  );
}

export function renderStatusPage(
  h: HealthData,
  opts: {
    details: boolean;
    refresh?: boolean;
    version: string;
    environment: string;
    generatedAt: Date;
    viewer?: Viewer | null;
    warnings?: readonly string[];
  },
): string {
  const banner = h.status === 'healthy' ? 'All systems operational' : 'Degraded: one or more components are impaired';
  return html(
    <Layout
      title={`Status: ${h.status}`}
      current="/api/v1/health"
      viewer={opts.viewer ?? null}
      head={opts.refresh ? <meta http-equiv="refresh" content="30" /> : undefined}
    >
      <h1>Vulnintel status</h1>
      <div class={`banner ${h.status}`} role="status">
        {banner}
      </div>
      {(opts.warnings ?? []).map((w) => (
        <div class="warning" role="alert">
          {w}
        </div>
      ))}
      <ul class="badges">
        <Badge label="API" value={h.services.api} />
        <Badge label="Database" value={h.database} />
        <Badge label="Enricher" value={h.services.enricher} />
        <Badge label="Renderer" value={h.services.renderer} />
        <Badge label="Alerts" value={h.services.alerts} />
      </ul>
      {opts.details ? (
        <>
          <h2>Corpus</h2>
          <table>
            <tbody>
              <tr>
                <th>Total CVEs</th>
                <td>{show(h.counts.total_cves)}</td>
              </tr>
              <tr>
                <th>Alert-ready</th>
                <td>{show(h.counts.alert_ready)}</td>
              </tr>
              <tr>
                <th>Pending enrichment</th>
                <td>{show(h.counts.pending_enrichment)}</td>
              </tr>
              <tr>
                <th>Rendered</th>
                <td>{show(h.counts.rendered)}</td>
              </tr>
              <tr>
                <th>Database size (MB)</th>
                <td>{show(h.db_size_mb)}</td>
              </tr>
              <tr>
                <th>Disk free (GB)</th>
                <td>{show(h.disk_free_gb)}</td>
              </tr>
            </tbody>
          </table>
          <h2>Pipeline</h2>
          <Scroll label="Pipeline">
            <table>
              <thead>
                <tr>
                  <th>Stage</th>
                  <th>Status</th>
                  <th>Last run</th>
                  <th>Rows</th>
                  <th>Duration (s)</th>
                  <th>Hours since</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries<HealthData['pipeline']['ingest']>(h.pipeline).map(([name, s]) => (
                  <tr>
                    <th>{name}</th>
                    <td>{show(s.status)}</td>
                    <td>{show(s.last_run)}</td>
                    <td>{show(s.rows)}</td>
                    <td>{show(s.duration_sec)}</td>
                    <td>{show(s.hours_since)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        </>
      ) : (
        <p class="note">Sign in to see corpus counts, database size, disk usage and pipeline timings.</p>
      )}
      <footer>
        Version {opts.version} · {opts.environment} · generated {opts.generatedAt.toISOString()} ·{' '}
        {opts.refresh ? (
          <>
            refreshes every 30 seconds (<a href="/api/v1/health">stop</a>)
          </>
        ) : (
          <a href="/api/v1/health?refresh=30">Refresh every 30 seconds</a>
        )}
      </footer>
    </Layout>,
  );
}
