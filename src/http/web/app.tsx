// The signed-in app's pages: overview, environments and their assets (alerts, watchlist, webhooks and the CVE explorer:
// activity.tsx). Thin views
// over what the services answer; every form posts with the CSRF token; a viewer sees no form that changes anything.
import type { EnvironmentOverview } from '../../services/overview.ts';
import type { Environment } from '../../services/environments.ts';
import type { AssetAnswer } from '../../services/correlation-answer.ts';
import type { StoredView } from '../../services/windows-correlation.ts';
import type { Webhook } from '../../services/webhooks.ts';
import { BarChart, LineChart } from './charts.tsx';
import { CHART_MIN_DAYS } from '../../domain/exposure.ts';
import { Csrf, FieldError, html, Layout, when, type Viewer, Scroll } from './layout.tsx';
import { SuggestionList, suggestFrom } from './suggest.tsx';

export const PRIORITIES = ['PATCH NOW', 'PATCH NEXT', 'MONITOR'] as const;
export const cls = (p: string) => `p-${p.replace(' ', '_')}`;
export const canChange = (v: Viewer) => v.role === 'owner' || v.role === 'admin';

export interface AlertItem {
  id: number;
  cve_id: string;
  sage_priority: string;
  reasons: string[];
  watchlist_match: { entity_type: string; entity_name: string };
  delivery_status: string;
  created_at: string;
  /** Read by the signed-in member (the inbox); absent elsewhere. */
  read?: boolean;
  /** The spec §6 payload: its `data.matches` name the environment assets the alert is about (docs/alerts.md "Asset matches"). */
  payload?: unknown;
}

interface AssetMatch {
  entity_type: string;
  entity_name: string;
  asset_id?: string;
  asset_kind?: string;
  status?: string;
}
/** Asset links shown per alert before "and N more". */
const ASSET_LINKS = 5;

/** An alert's matching assets, per environment (by name, as the payload names it; an environment renamed or deleted since has no link). */
function alertAssets(a: AlertItem, envs: readonly { id: number; name: string }[]) {
  const matches = ((a.payload as { data?: { matches?: AssetMatch[] } } | undefined)?.data?.matches ?? []).filter(
    (m) => m.entity_type === 'environment' && m.asset_id,
  );
  const groups = new Map<string, { env: { id: number; name: string } | null; assets: AssetMatch[] }>();
  for (const m of matches) {
    const g = groups.get(m.entity_name) ?? { env: envs.find((e) => e.name === m.entity_name) ?? null, assets: [] };
    g.assets.push(m);
    groups.set(m.entity_name, g);
  }
  return [...groups.entries()];
}

/** Links to the CVE's matching assets: each asset alone on its environment's page (`?asset_id=`). */
function AlertAssets({ a, envs }: { a: AlertItem; envs: readonly { id: number; name: string }[] }) {
  const groups = alertAssets(a, envs);
  if (!groups.length) return <>—</>;
  return (
    <ul class="plain">
      {groups.map(([name, g]) => (
        <li>
          {g.env ? <a href={`/environments/${g.env.id}`}>{name}</a> : name}:{' '}
          {g.assets.slice(0, ASSET_LINKS).map((m, i) => (
            <>
              {i ? ', ' : ''}
              {g.env ? (
                <a
                  href={`/environments/${g.env.id}?asset_id=${encodeURIComponent(m.asset_id!)}`}
                  aria-label={`${m.asset_id} in ${name} (${a.cve_id})`}
                >
                  {m.asset_id}
                </a>
              ) : (
                m.asset_id
              )}
            </>
          ))}
          {g.assets.length > ASSET_LINKS ? ` and ${g.assets.length - ASSET_LINKS} more` : ''}
        </li>
      ))}
    </ul>
  );
}

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

/**
 * The alerts as a table, each linking to its CVE and to its matching assets (`envs`: the organization's environments);
 * with `csrf`, each row says read or unread for the member and toggles it (back to `back`).
 */
export function AlertTable({
  items,
  envs,
  csrf,
  back,
}: {
  items: AlertItem[];
  envs: readonly { id: number; name: string }[];
  csrf?: string;
  back?: string;
}) {
  if (!items.length) return <p class="none">No alerts.</p>;
  return (
    <Scroll label="Alerts">
      <table id="alerts">
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>CVE</th>
            <th>Priority</th>
            <th>Match</th>
            <th>Assets</th>
            <th>Why</th>
            <th>Delivery</th>
            {csrf ? <th>Read</th> : null}
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr class={a.read === false ? 'unread' : undefined} id={`alert-${a.id}`}>
              <td>{when(a.created_at)}</td>
              <td>
                <a href={`/cve/${a.cve_id}`}>{a.cve_id}</a>
              </td>
              <td>
                <span class={`badge ${cls(a.sage_priority)}`}>{a.sage_priority}</span>
              </td>
              <td>
                {a.watchlist_match.entity_type}: {a.watchlist_match.entity_name}
              </td>
              <td class="assets">
                <AlertAssets a={a} envs={envs} />
              </td>
              <td>{a.reasons.join('; ')}</td>
              <td>{a.delivery_status}</td>
              {csrf ? (
                <td>
                  {a.read === false ? <strong>unread</strong> : 'read'}{' '}
                  <form class="inline" method="post" action={`/alerts/${a.id}/${a.read === false ? 'read' : 'unread'}`}>
                    <Csrf token={csrf} />
                    <input type="hidden" name="back" value={back ?? '/alerts'} />
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={`Mark ${a.cve_id} ${a.read === false ? 'read' : 'unread'}`}
                    >
                      Mark {a.read === false ? 'read' : 'unread'}
                    </button>
                  </form>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

export function renderEnvironments(
  v: Viewer,
  envs: Environment[],
  form: { name?: string; description?: string; errors?: Record<string, string> } = {},
): string {
  return html(
    <Layout title="Environments" current="/environments" viewer={v}>
      <h1>Environments</h1>
      <Scroll label="Environments">
        <table id="environments">
          <thead>
            <tr>
              <th>Name</th>
              <th>Description</th>
              <th>Windows hosts</th>
              <th>Created</th>
              {canChange(v) ? (
                <th>
                  <span class="skip">Action</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {envs.map((e) => (
              <tr>
                <td>
                  <a href={`/environments/${e.id}`}>{e.name}</a>
                </td>
                <td>{e.description}</td>
                <td>{e.host_count}</td>
                <td>{e.created_at.slice(0, 10)}</td>
                {canChange(v) ? (
                  <td>
                    <form class="inline" method="post" action={`/environments/${e.id}/delete`}>
                      <Csrf token={v.csrf} />
                      <button type="submit" class="danger" aria-label={`Delete ${e.name}`}>
                        Delete
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {envs.length === 0 ? <p class="none">No environment yet.</p> : null}
      {canChange(v) ? (
        <>
          <h2>New environment</h2>
          <form method="post" action="/environments" class="stack" novalidate>
            <Csrf token={v.csrf} />
            <label>
              Name{' '}
              <input
                name="name"
                maxLength={100}
                value={form.name ?? ''}
                aria-invalid={form.errors?.name ? 'true' : undefined}
                aria-describedby={form.errors?.name ? 'name-error' : undefined}
              />
              <FieldError errors={form.errors} field="name" />
            </label>
            <label>
              Description <input name="description" maxLength={500} value={form.description ?? ''} />
              <FieldError errors={form.errors} field="description" />
            </label>
            <button type="submit">Create environment</button>
          </form>
        </>
      ) : (
        <p class="note">Owners and admins create and delete environments.</p>
      )}
    </Layout>,
  );
}

/** What an upload came to: done, or refused whole with its message and each refused row's reasons. */
export interface UploadOutcome {
  kind: 'nameplates' | 'windows';
  done?: boolean;
  message?: string;
  rows?: { row: number; asset_id: string | null; errors: string[] }[];
}

const UPLOAD_TEXT = {
  nameplates: { title: 'Nameplates', columns: 'asset_id, vendor, product, version (cpe optional)' },
  windows: {
    title: 'Windows hosts',
    columns:
      "the spec's host columns: asset_id, os_product, edition_id, display_version, os_build, architecture, installation_type, installed_kbs (separated by ;), kb_source, esu_enrolled, collected_at",
  },
} as const;

function UploadForms({ v, env, upload }: { v: Viewer; env: Environment; upload?: UploadOutcome }) {
  return (
    <>
      <h2>Upload a CSV</h2>
      {upload?.done ? (
        <p class="flash" role="status" id="upload-done">
          {UPLOAD_TEXT[upload.kind].title} uploaded: every row stored.
        </p>
      ) : null}
      {upload && !upload.done ? (
        <div class="alert-box" role="alert" id="upload-refused">
          <p>
            <strong>{UPLOAD_TEXT[upload.kind].title}: the file was refused.</strong> {upload.message}
          </p>
          {upload.rows?.length ? (
            <Scroll label="Refused rows">
              <table id="upload-errors">
                <caption>Refused rows (row 1 is the header)</caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Asset id</th>
                    <th scope="col">Reasons</th>
                  </tr>
                </thead>
                <tbody>
                  {upload.rows.map((r) => (
                    <tr>
                      <td>{r.row}</td>
                      <td>{r.asset_id ?? '—'}</td>
                      <td>{r.errors.join('; ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          ) : null}
        </div>
      ) : null}
      <div class="cards">
        {(['nameplates', 'windows'] as const).map((kind) => (
          <form
            method="post"
            action={`/environments/${env.id}/upload`}
            enctype="multipart/form-data"
            class="stack card"
            id={`upload-${kind}`}
          >
            <Csrf token={v.csrf} />
            <input type="hidden" name="kind" value={kind} />
            <label>
              {UPLOAD_TEXT[kind].title} (CSV, UTF-8) <input type="file" name="file" accept=".csv,text/csv" required />
            </label>
            <p class="sub">Columns: {UPLOAD_TEXT[kind].columns}. A file with any refused row stores nothing.</p>
            <button type="submit">Upload {UPLOAD_TEXT[kind].title.toLowerCase()}</button>
          </form>
        ))}
      </div>
    </>
  );
}

/** Whether a host needs Extended Security Updates for a fix (a fix group of ESU). */
const needsEsu = (h: StoredView) => h.fix_groups.some((g) => g.fix_type === 'esu');

function WindowsHosts({ hosts, total }: { hosts: StoredView[]; total: number }) {
  if (!hosts.length) return null;
  return (
    <>
      <h2 id="windows-hosts">Windows hosts ({total})</h2>
      {hosts.map((h) => (
        <section class="card" id={`host-${h.asset_id}`}>
          <h3>
            {h.asset_id}: {h.microsoft_product ?? 'not mapped to a Microsoft product'}
          </h3>
          <p class="sub">
            {h.counts.confirmed_open} open · {h.counts.needs_review} need review · {h.counts.cleared} cleared ·
            evaluated {h.evaluated_on}
          </p>
          <p>
            {h.end_of_life ? (
              <span class="badge sev-CRITICAL">end of life</span>
            ) : (
              <span class="badge sev-LOW">supported</span>
            )}{' '}
            {needsEsu(h) ? <span class="badge sev-HIGH">ESU needed</span> : null}{' '}
            {h.labels
              .filter((l) => l !== 'end of life')
              .map((l) => (
                <span class="badge">{l}</span>
              ))}
          </p>
          {h.map_note ? <p class="sub">{h.map_note}</p> : null}
          {h.fix_groups.length ? (
            <ol class="fixes">
              {h.fix_groups.map((g) => (
                <li>
                  {g.fix}{' '}
                  <span class="sub">
                    ({g.counts.total} CVEs{g.counts.known_exploited ? `, ${g.counts.known_exploited} KEV` : ''}
                    {g.highest_score !== null ? `, highest ${g.highest_score}` : ''})
                  </span>
                </li>
              ))}
            </ol>
          ) : (
            <p class="none">Nothing to install.</p>
          )}
        </section>
      ))}
    </>
  );
}

/** Which part of an environment's assets a page shows: a page of nameplates, or one asset alone (`assetId`). */
/**
 * CVE rows per asset on a page of the environment's assets: the highest-priority ones, with a link to the asset
 * alone for the rest, so a page of 50 nameplates stays readable and light; the asset alone lists every CVE.
 */
export const ASSET_CVE_ROWS = 10;

export interface EnvironmentView {
  page: number;
  pages: number;
  assetId: string | null;
}

function EnvironmentPager({ env, view }: { env: Environment; view: EnvironmentView }) {
  if (view.assetId !== null)
    return (
      <p class="flash" id="asset-filter">
        Showing asset <strong>{view.assetId}</strong> only. <a href={`/environments/${env.id}`}>Show every asset</a>
      </p>
    );
  if (view.pages <= 1) return null;
  const at = (n: number) => `/environments/${env.id}?page=${n}#assets`;
  return (
    <nav class="pager" aria-label="Pages of assets">
      {view.page > 1 ? <a href={at(view.page - 1)}>Previous</a> : null}
      <span>
        Page {view.page} of {view.pages}
      </span>
      {view.page < view.pages ? <a href={at(view.page + 1)}>Next</a> : null}
    </nav>
  );
}

export function renderEnvironment(
  v: Viewer,
  env: Environment,
  assets: AssetAnswer[],
  total: number,
  form: {
    asset_id?: string;
    vendor?: string;
    product?: string;
    version?: string;
    errors?: Record<string, string>;
  } = {},
  hosts: { items: StoredView[]; total: number } = { items: [], total: 0 },
  upload?: UploadOutcome,
  view: EnvironmentView = { page: 1, pages: 1, assetId: null },
): string {
  return html(
    <Layout title={env.name} current="/environments" viewer={v}>
      <p>
        <a href="/environments">All environments</a>
      </p>
      <h1>{env.name}</h1>
      {env.description ? <p class="sub">{env.description}</p> : null}
      <p>
        {total} assets · {env.host_count} Windows hosts ·{' '}
        <a href={`/environments/${env.id}/export.csv`}>Export the results as CSV</a> ·{' '}
        <a href={`/environments/${env.id}/inventory.csv`}>Export the inventory as CSV</a> ·{' '}
        <a href={`/environments/${env.id}/decisions`}>Decisions</a>
      </p>
      {canChange(v) ? (
        <>
          <h2>Add an asset</h2>
          <form method="post" action={`/environments/${env.id}/assets`} class="stack" novalidate>
            <Csrf token={v.csrf} />
            {(['asset_id', 'vendor', 'product', 'version'] as const).map((f) => (
              <label>
                {f === 'asset_id' ? 'Asset id' : f[0].toUpperCase() + f.slice(1)}{' '}
                <input
                  name={f}
                  id={`asset-${f}`}
                  maxLength={f === 'asset_id' ? 64 : 200}
                  value={form[f] ?? ''}
                  aria-invalid={form.errors?.[f] ? 'true' : undefined}
                  {...(f === 'vendor'
                    ? suggestFrom('asset-vendor')
                    : f === 'product'
                      ? suggestFrom('asset-product', '#asset-vendor')
                      : {})}
                />
                <FieldError errors={form.errors} field={f} />
              </label>
            ))}
            <SuggestionList list="asset-vendor" />
            <SuggestionList list="asset-product" />
            <FieldError errors={form.errors} field="asset" />
            <button type="submit">Add asset</button>
          </form>
          <UploadForms v={v} env={env} upload={upload} />
        </>
      ) : null}
      <WindowsHosts hosts={hosts.items} total={hosts.total} />
      <h2 id="assets">Assets and their CVEs</h2>
      <EnvironmentPager env={env} view={view} />
      {assets.length === 0 && !(view.assetId !== null && hosts.items.length) ? (
        <p class="none">
          {view.assetId === null
            ? 'No asset stored in this environment.'
            : 'No asset with this id in this environment.'}
        </p>
      ) : null}
      {assets.map((a) => (
        <section id={`asset-${a.asset.asset_id}`} class="card">
          <h3>
            {a.asset.asset_id}: {a.asset.vendor} {a.asset.product} {a.asset.version ?? '(version unknown)'}
          </h3>
          <p class="sub">
            {a.counts.affected} affected · {a.counts.needs_review} need review
          </p>
          {canChange(v) ? (
            <form
              class="inline"
              method="post"
              action={`/assets/${encodeURIComponent(a.asset.asset_id)}/delete?environment_id=${env.id}`}
            >
              <Csrf token={v.csrf} />
              <button type="submit" class="secondary">
                Remove {a.asset.asset_id}
              </button>
            </form>
          ) : null}
          {a.listed.length ? (
            <Scroll label={`CVEs of ${a.asset.asset_id}`}>
              <table>
                <thead>
                  <tr>
                    <th>CVE</th>
                    <th>Status</th>
                    <th>Deciding range</th>
                    <th>Fix</th>
                    <th>KEV</th>
                  </tr>
                </thead>
                <tbody>
                  {(view.assetId === null ? a.listed.slice(0, ASSET_CVE_ROWS) : a.listed).map((d) => (
                    <tr>
                      <td>
                        <a href={`/cve/${d.cve_id}`}>{d.cve_id}</a>
                        <br />
                        <span class="sub">{d.card.title}</span>
                        <br />
                        <a
                          href={`/environments/${env.id}/decisions/${d.cve_id}`}
                          aria-label={`Decision on ${d.cve_id}`}
                        >
                          Decision
                        </a>
                      </td>
                      <td>{d.v.status}</td>
                      <td>{d.v.reason}</td>
                      <td>{d.v.fixed_version ?? '—'}</td>
                      <td>{d.card.kev_flagged ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          ) : null}
          {view.assetId === null && a.listed.length > ASSET_CVE_ROWS ? (
            <p>
              <a href={`/environments/${env.id}?asset_id=${encodeURIComponent(a.asset.asset_id)}`}>
                All {a.listed.length} CVEs of {a.asset.asset_id}
              </a>{' '}
              (the first {ASSET_CVE_ROWS} by priority are shown here)
            </p>
          ) : null}
        </section>
      ))}
      {view.assetId === null ? <EnvironmentPager env={env} view={view} /> : null}
    </Layout>,
  );
}
