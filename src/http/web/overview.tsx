// The signed-in app's overview: per environment its open CVEs by priority and worst-exposed assets, the charts,
// exposure over time, disabled webhooks and the recent alerts.
import type { EnvironmentOverview } from '../../services/overview.ts';
import type { Webhook } from '../../services/webhooks.ts';
import { BarChart, LineChart } from './charts.tsx';
import { CHART_MIN_DAYS } from '../../domain/exposure.ts';
import { html, Layout, when, type Viewer } from './layout.tsx';
import { AlertTable, cls, PRIORITIES, type AlertItem } from './alert-table.tsx';

export interface OverviewData {
  envs: EnvironmentOverview[];
  disabledWebhooks: Webhook[];
  recentAlerts: { items: AlertItem[]; total: number };
  now: Date;
  /** Per environment id: its daily exposure snapshots (open CVEs), oldest first. */
  history: ReadonlyMap<number, { day: string; open_cves: number }[]>;
}

/** An environment's open CVEs over time: the line once there are CHART_MIN_DAYS snapshots, until then how many there are. */
function ExposureOverTime({
  env,
  days,
}: {
  env: EnvironmentOverview['environment'];
  days: { day: string; open_cves: number }[];
}) {
  const id = `chart-exposure-${env.id}`;
  if (days.length < CHART_MIN_DAYS) {
    return (
      <figure class="chart" id={id}>
        <figcaption>Open CVEs over time: {env.name}</figcaption>
        <p class="none" data-history-days={days.length}>
          {days.length} {days.length === 1 ? 'day' : 'days'} of history so far: the line is drawn once there are{' '}
          {CHART_MIN_DAYS} daily snapshots.
        </p>
      </figure>
    );
  }
  return (
    <LineChart
      id={id}
      title={`Open CVEs over time: ${env.name}`}
      description={`Open CVEs of ${env.name} per daily snapshot`}
      points={days.map((d) => ({ label: d.day, value: d.open_cves }))}
    />
  );
}

function daysSince(iso: string | null, now: Date): number | null {
  return iso ? Math.floor((now.getTime() - Date.parse(iso)) / 86_400_000) : null;
}

export function renderOverview(v: Viewer, d: OverviewData): string {
  const all = d.envs.flatMap((e) => e.open_cves);
  const distinct = new Map(all.map((c) => [c.cve_id, c]));
  const byPriority = PRIORITIES.map((p) => ({
    label: p,
    value: [...distinct.values()].filter((c) => c.priority === p).length,
    cls: `bar-${p.replace(' ', '_')}`,
  }));
  const vendors = new Map<string, number>();
  for (const c of distinct.values()) vendors.set(c.vendor, (vendors.get(c.vendor) ?? 0) + 1);
  const byVendor = [...vendors]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 10)
    .map(([label, value]) => ({ label, value }));
  const kevAges = [...distinct.values()]
    .filter((c) => c.known_exploited)
    .map((c) => ({ label: c.cve_id, value: daysSince(c.published_at, d.now) ?? 0 }))
    .sort((a, b) => b.value - a.value)
    .slice(0, 10);
  const alertsPerEnv = d.envs.map((e) => ({
    label: e.environment.name,
    value: d.recentAlerts.items.filter(
      (a) => a.watchlist_match.entity_type === 'environment' && a.watchlist_match.entity_name === e.environment.name,
    ).length,
  }));
  return html(
    <Layout title="Overview" current="/overview" viewer={v}>
      <h1>Overview</h1>
      {d.disabledWebhooks.map((w) => (
        <p class="alert-box" id={`webhook-disabled-${w.id}`}>
          Webhook <strong>{w.label}</strong> is disabled after {w.consecutive_failures} failed deliveries
          {w.disabled_at ? ` (since ${when(w.disabled_at)} UTC)` : ''}.{' '}
          <a href="/webhooks">Re-enable it on the webhooks page</a>.
        </p>
      ))}
      {d.envs.length === 0 ? (
        <p>
          No environment yet. <a href="/environments">Create one</a> and add its assets.
        </p>
      ) : null}
      <div class="cards">
        {d.envs.map((e) => (
          <section class="card" id={`env-${e.environment.id}`} aria-labelledby={`env-${e.environment.id}-h`}>
            <h2 id={`env-${e.environment.id}-h`}>
              <a href={`/environments/${e.environment.id}`}>{e.environment.name}</a>
            </h2>
            <p class="sub">
              {e.assets} assets · {e.environment.host_count} Windows hosts
            </p>
            <dl class="kv">
              {PRIORITIES.map((p) => (
                <>
                  <dt>
                    <span class={`badge ${cls(p)}`}>{p}</span>
                  </dt>
                  <dd data-priority={p}>{e.by_priority[p]}</dd>
                </>
              ))}
              <dt>Known exploited (KEV)</dt>
              <dd data-kev>{e.known_exploited}</dd>
              <dt>Needs review</dt>
              <dd>{e.needs_review}</dd>
            </dl>
            <h3>Worst-exposed assets</h3>
            {e.worst_assets.length ? (
              <ol>
                {e.worst_assets.map((a) => (
                  <li>
                    <a href={`/environments/${e.environment.id}#asset-${a.asset_id}`}>{a.asset_id}</a> ({a.vendor}{' '}
                    {a.product} {a.version ?? ''}): {a.affected} affected
                    {a.known_exploited ? `, ${a.known_exploited} KEV` : ''}
                  </li>
                ))}
              </ol>
            ) : (
              <p class="none">No asset affected.</p>
            )}
            <p>
              Plant report, last 30 days: <a href={`/api/v1/environments/${e.environment.id}/report`}>HTML</a> ·{' '}
              <a href={`/api/v1/environments/${e.environment.id}/report?format=pdf`}>PDF</a>
            </p>
          </section>
        ))}
      </div>
      <h2>Charts</h2>
      <div class="cards">
        <BarChart
          id="chart-priority"
          title="Open CVEs by priority"
          description="Distinct CVEs affecting your assets, by sage priority"
          bars={byPriority}
        />
        <BarChart
          id="chart-vendor"
          title="Open CVEs by vendor"
          description="Distinct CVEs affecting your assets, by the asset's vendor (top 10)"
          bars={byVendor}
        />
        <BarChart
          id="chart-kev-age"
          title="Days since published, open KEV CVEs"
          description="Known-exploited CVEs affecting your assets, days since publication (oldest 10)"
          bars={kevAges}
          unit=" d"
        />
        <BarChart
          id="chart-alerts"
          title="Exposure alerts, last 7 days"
          description="Alerts of the last 7 days matching an environment's assets, per environment"
          bars={alertsPerEnv}
        />
      </div>
      {d.envs.length ? (
        <>
          <h2>Exposure over time</h2>
          <div class="cards">
            {d.envs.map((e) => (
              <ExposureOverTime env={e.environment} days={d.history.get(e.environment.id) ?? []} />
            ))}
          </div>
        </>
      ) : null}
      <h2>Alerts of the last 7 days ({d.recentAlerts.total})</h2>
      <AlertTable items={d.recentAlerts.items.slice(0, 10)} envs={d.envs.map((e) => e.environment)} />
      <p>
        <a href="/alerts">All alerts</a>
      </p>
    </Layout>,
  );
}
