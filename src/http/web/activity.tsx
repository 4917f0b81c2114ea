// The signed-in app's alerts inbox, watchlist, webhooks and CVE explorer pages: thin views over what the services
// answer, as the overview and environments (overview.tsx, environments.tsx, environment.tsx); every form posts with the
// CSRF token; a viewer sees no form that changes anything.
import type { Environment } from '../../services/environments.ts';
import type { WatchEntry } from '../../services/watchlists.ts';
import type { Delivery, DeliveryResult, Webhook } from '../../services/webhooks.ts';
import { canChange, Csrf, FieldError, html, Layout, when, type Viewer, Scroll } from './layout.tsx';
import { SuggestionList, suggestFrom } from './suggest.tsx';
import { entityKey } from '../../domain/watchlist.ts';
import { AlertTable, PRIORITIES, type AlertItem } from './alert-table.tsx';

export interface AlertFilters {
  priority?: string;
  since_days?: string;
  match_type?: string;
  environment_id?: string;
  change_kind?: string;
  date_from?: string;
  date_to?: string;
  unread?: string;
}

const CHANGE_LABEL: Record<string, string> = {
  new_cve: 'new CVE',
  cve_removed: 'CVE removed',
  kev_added: 'added to KEV',
  kev_removed: 'removed from KEV',
  epss_threshold: 'EPSS over threshold',
  cvss_changed: 'CVSS changed',
  exploit_maturity_up: 'exploit maturity up',
  patch_changed: 'patch changed',
  advisory_added: 'advisory added',
  ranges_changed: 'affected ranges changed',
};

export function renderAlerts(
  v: Viewer,
  items: AlertItem[],
  total: number,
  page: number,
  pages: number,
  f: AlertFilters,
  qs: (page: number) => string,
  envs: Environment[],
  here: string,
): string {
  const unread = items.filter((a) => a.read === false).length;
  return html(
    <Layout title="Alerts" current="/alerts" viewer={v}>
      <h1>Alerts</h1>
      <form method="get" action="/alerts" class="filters">
        <label>
          Priority{' '}
          <select name="priority">
            {['', ...PRIORITIES, 'IGNORE'].map((p) => (
              <option value={p} selected={(f.priority ?? '') === p}>
                {p || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Environment{' '}
          <select name="environment_id">
            <option value="" selected={!f.environment_id}>
              any
            </option>
            {envs.map((e) => (
              <option value={String(e.id)} selected={f.environment_id === String(e.id)}>
                {e.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Reason{' '}
          <select name="change_kind">
            <option value="" selected={!f.change_kind}>
              any
            </option>
            {Object.entries(CHANGE_LABEL).map(([k, label]) => (
              <option value={k} selected={f.change_kind === k}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Matched by{' '}
          <select name="match_type">
            {['', 'vendor', 'product', 'protocol', 'cve', 'environment'].map((p) => (
              <option value={p} selected={(f.match_type ?? '') === p}>
                {p || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Raised in the last{' '}
          <select name="since_days">
            {['', '1', '7', '30', '90'].map((p) => (
              <option value={p} selected={(f.since_days ?? '') === p}>
                {p ? `${p} days` : 'any time'}
              </option>
            ))}
          </select>
        </label>
        <label>
          From <input type="date" name="date_from" value={f.date_from ?? ''} />
        </label>
        <label>
          To <input type="date" name="date_to" value={f.date_to ?? ''} />
        </label>
        <label>
          <input type="checkbox" name="unread" value="true" checked={f.unread === 'true'} /> Unread only
        </label>
        <button type="submit">Filter</button> <a href="/alerts">Clear</a>
      </form>
      <p>
        {total} alerts{unread ? ` · ${unread} unread on this page` : ''}
      </p>
      {unread ? (
        <form class="inline" method="post" action="/alerts/read-all">
          <Csrf token={v.csrf} />
          <input type="hidden" name="back" value={here} />
          <button type="submit" class="secondary">
            Mark all read
          </button>
        </form>
      ) : null}
      <AlertTable items={items} envs={envs} csrf={v.csrf} back={here} />
      <nav class="pager" aria-label="Pages">
        {page > 1 ? <a href={qs(page - 1)}>Previous</a> : null}
        <span>
          Page {page} of {Math.max(1, pages)}
        </span>
        {page < pages ? <a href={qs(page + 1)}>Next</a> : null}
      </nav>
    </Layout>,
  );
}

export function renderWatchlist(
  v: Viewer,
  entries: WatchEntry[],
  form: { entity_type?: string; entity_id?: string; errors?: Record<string, string>; notice?: string } = {},
): string {
  return html(
    <Layout title="Watchlist" current="/watchlist" viewer={v}>
      <h1>Watchlist</h1>
      {form.notice ? <p class="flash">{form.notice}</p> : null}
      <Scroll label="Watchlist">
        <table id="watchlist">
          <thead>
            <tr>
              <th>Type</th>
              <th>Watched</th>
              <th>Since</th>
              {canChange(v) ? (
                <th>
                  <span class="skip">Action</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr>
                <td>{e.entity_type}</td>
                <td>{e.entity_type === 'cve' ? <a href={`/cve/${e.entity_id}`}>{e.entity_name}</a> : e.entity_name}</td>
                <td>{e.created_at.slice(0, 10)}</td>
                {canChange(v) ? (
                  <td>
                    <form class="inline" method="post" action={`/watchlist/${e.id}/delete`}>
                      <Csrf token={v.csrf} />
                      <button type="submit" class="secondary" aria-label={`Stop watching ${e.entity_name}`}>
                        Stop watching
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {entries.length === 0 ? <p class="none">Nothing watched yet.</p> : null}
      {canChange(v) ? (
        <>
          <h2>Watch</h2>
          <form method="post" action="/watchlist" class="stack" novalidate>
            <Csrf token={v.csrf} />
            <label>
              Type{' '}
              <select name="entity_type" id="watch-type">
                {['vendor', 'product', 'protocol', 'cve'].map((t) => (
                  <option value={t} selected={form.entity_type === t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Id (vendor slug, product id, protocol name or CVE id; type part of a name for suggestions from the
              catalog){' '}
              <input
                name="entity_id"
                maxLength={200}
                value={form.entity_id ?? ''}
                aria-invalid={form.errors?.entity_id ? 'true' : undefined}
                {...suggestFrom('watch', '#watch-type')}
              />
              <FieldError errors={form.errors} field="entity_id" />
            </label>
            <SuggestionList list="watch" />
            <button type="submit">Watch</button>
          </form>
        </>
      ) : null}
    </Layout>,
  );
}

export interface WebhooksPageState {
  errors?: Record<string, string>;
  label?: string;
  url?: string;
  /** A secret just made (create, rotate): shown once. */
  secret?: { webhookId: number; secret: string };
  test?: { webhookId: number; result: DeliveryResult };
  notice?: string;
  deliveries?: { webhookId: number; items: Delivery[] };
}

export function renderWebhooks(v: Viewer, hooks: Webhook[], s: WebhooksPageState = {}): string {
  const admin = canChange(v);
  return html(
    <Layout title="Webhooks" current="/webhooks" viewer={v}>
      <h1>Webhooks</h1>
      {s.notice ? <p class="flash">{s.notice}</p> : null}
      {s.secret ? (
        <>
          <p>The signing secret of webhook {s.secret.webhookId} (shown once; store it now):</p>
          <p class="secret" id="webhook-secret">
            {s.secret.secret}
          </p>
        </>
      ) : null}
      {s.test ? (
        <p class={s.test.result.outcome === 'delivered' ? 'flash' : 'alert-box'} id="test-outcome">
          Test delivery: {s.test.result.outcome}
          {s.test.result.http_status !== null ? ` (HTTP ${s.test.result.http_status})` : ''}
          {s.test.result.duration_ms !== null ? ` in ${s.test.result.duration_ms} ms` : ''}
          {s.test.result.error ? `: ${s.test.result.error}` : ''}
        </p>
      ) : null}
      {hooks.length === 0 ? <p class="none">No webhook yet.</p> : null}
      {hooks.map((w) => (
        <section class="card" id={`webhook-${w.id}`}>
          <h2>
            {w.label} <span class={`badge ${w.status === 'active' ? 'sev-LOW' : 'sev-CRITICAL'}`}>{w.status}</span>
          </h2>
          <p class="sub">
            {w.url} · {w.kind} · last delivery {w.last_delivery_at ? `${when(w.last_delivery_at)} UTC` : 'never'} ·{' '}
            {w.consecutive_failures} consecutive failures
          </p>
          {w.status === 'disabled' ? (
            <p class="alert-box">
              Disabled after {w.consecutive_failures} failed deliveries
              {w.disabled_at ? ` on ${when(w.disabled_at)} UTC` : ''}.
            </p>
          ) : null}
          {admin ? (
            <>
              <p>
                {w.status === 'disabled' ? (
                  <form class="inline" method="post" action={`/webhooks/${w.id}/enable`}>
                    <Csrf token={v.csrf} />
                    <button type="submit">Re-enable</button>
                  </form>
                ) : null}{' '}
                <form class="inline" method="post" action={`/webhooks/${w.id}/test`}>
                  <Csrf token={v.csrf} />
                  <button type="submit" class="secondary">
                    Send a test delivery
                  </button>
                </form>{' '}
                <form class="inline" method="post" action={`/webhooks/${w.id}/rotate`}>
                  <Csrf token={v.csrf} />
                  <button type="submit" class="secondary">
                    Rotate the secret
                  </button>
                </form>{' '}
                <form class="inline" method="post" action={`/webhooks/${w.id}/delete`}>
                  <Csrf token={v.csrf} />
                  <button type="submit" class="danger">
                    Delete
                  </button>
                </form>
              </p>
              <details>
                <summary>Edit {w.label}</summary>
                <form method="post" action={`/webhooks/${w.id}/edit`} class="stack">
                  <Csrf token={v.csrf} />
                  <label>
                    Label <input name="label" maxLength={100} value={w.label} />
                  </label>
                  <label>
                    URL <input name="url" type="url" maxLength={2048} value={w.url} />
                  </label>
                  <button type="submit">Save</button>
                </form>
              </details>
            </>
          ) : null}
          <p>
            <a href={`/webhooks?id=${w.id}#webhook-${w.id}`}>Recent deliveries</a>
          </p>
          {s.deliveries?.webhookId === w.id ? (
            s.deliveries.items.length ? (
              <Scroll label="Recent deliveries">
                <table class="deliveries">
                  <thead>
                    <tr>
                      <th>When (UTC)</th>
                      <th>Event</th>
                      <th>CVE</th>
                      <th>Status</th>
                      <th>HTTP</th>
                      <th>Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {s.deliveries.items.map((d) => (
                      <tr>
                        <td>{when(d.claimed_at)}</td>
                        <td>{d.event}</td>
                        <td>{d.cve_id ?? '—'}</td>
                        <td>{d.status}</td>
                        <td>{d.http_status ?? '—'}</td>
                        <td>{d.error ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scroll>
            ) : (
              <p class="none">No delivery yet.</p>
            )
          ) : null}
        </section>
      ))}
      {admin ? (
        <>
          <h2>New webhook</h2>
          <form method="post" action="/webhooks" class="stack" novalidate>
            <Csrf token={v.csrf} />
            <label>
              Label{' '}
              <input
                name="label"
                maxLength={100}
                value={s.label ?? ''}
                aria-invalid={s.errors?.label ? 'true' : undefined}
              />
              <FieldError errors={s.errors} field="label" />
            </label>
            <label>
              URL (https){' '}
              <input
                name="url"
                type="url"
                maxLength={2048}
                value={s.url ?? ''}
                aria-invalid={s.errors?.url ? 'true' : undefined}
              />
              <FieldError errors={s.errors} field="url" />
            </label>
            <button type="submit">Create webhook</button>
          </form>
        </>
      ) : (
        <p class="note">Owners and admins manage webhooks.</p>
      )}
    </Layout>,
  );
}

export interface ExplorerCard {
  cve_id: string;
  title: string;
  severity: string | null;
  cvss_score: number | null;
  bcs_score: number;
  kev_flagged: boolean;
  exploit_maturity: string;
  patch_status: string;
  primary_vendor: string | null;
  primary_product: string | null;
  published_at: string | null;
}

/**
 * One click watches a card's vendor or product, or the protocol the explorer is filtered by: a small POST form to
 * /watchlist (CSRF token, back to the same explorer URL). What the watchlist holds already says so instead.
 */
function WatchButton({
  v,
  type,
  id,
  label,
  here,
  watched,
  cve,
}: {
  v: Viewer;
  type: 'vendor' | 'product' | 'protocol';
  id: string;
  label: string;
  here: string;
  watched: ReadonlySet<string>;
  cve?: string;
}) {
  const k = entityKey(type, id);
  if (k.ok && watched.has(`${type}:${k.key}`))
    return (
      <span class="badge">
        Watching {type} {label}
      </span>
    );
  return (
    <form class="inline" method="post" action="/watchlist">
      <Csrf token={v.csrf} />
      <input type="hidden" name="entity_type" value={type} />
      <input type="hidden" name="entity_id" value={id} />
      <input type="hidden" name="back" value={here} />
      <button
        type="submit"
        class="secondary"
        aria-label={cve ? `Watch ${type} ${label} (${cve})` : `Watch ${type} ${label}`}
      >
        Watch {type === 'vendor' ? label : type}
      </button>
    </form>
  );
}

/** The CVE explorer: the §4.1 filters of GET /api/v1/cves as a GET form (the URL holds the query), cards, paging; `watched`: the watchlist's `type:id` keys. */
export function renderExplorer(
  v: Viewer,
  q: Record<string, string>,
  page: { items: ExplorerCard[]; total: number; page: number; perPage: number } | null,
  link: (page: number) => string,
  here: string,
  watched: ReadonlySet<string> = new Set(),
): string {
  const field = (name: string, label: string, attrs: { type?: string; inputMode?: 'decimal' } = {}) => (
    <label>
      {label}{' '}
      <input
        name={name}
        value={q[name] ?? ''}
        type={attrs.type ?? 'text'}
        inputMode={attrs.inputMode}
        maxLength={200}
        size={attrs.type === 'date' ? undefined : 10}
      />
    </label>
  );
  const select = (name: string, label: string, options: [string, string][]) => (
    <label>
      {label}{' '}
      <select name={name}>
        {options.map(([val, text]) => (
          <option value={val} selected={(q[name] ?? '') === val}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  const yesNo: [string, string][] = [
    ['', 'any'],
    ['true', 'yes'],
    ['false', 'no'],
  ];
  const pages = page ? Math.max(1, Math.ceil(page.total / page.perPage)) : 1;
  return html(
    <Layout title="CVE explorer" current="/cves" viewer={v}>
      <h1>CVE explorer</h1>
      <form method="get" action="/cves" class="filters" role="search">
        <label>
          Search <input name="q" type="search" value={q.q ?? ''} maxLength={200} />
        </label>
        {field('vendor', 'Vendor')}
        {select('protocol', 'Protocol', [
          ['', 'any'],
          ...[
            'modbus',
            'dnp3',
            'bacnet',
            'profinet',
            'ethernet/ip',
            'opc ua',
            'iec 61850',
            'iec 104',
            's7comm',
            'mqtt',
          ].map((p): [string, string] => [p, p]),
        ])}
        {select('severity', 'Severity', [
          ['', 'any'],
          ['CRITICAL', 'critical'],
          ['HIGH', 'high'],
          ['MEDIUM', 'medium'],
          ['LOW', 'low'],
          ['CRITICAL,HIGH', 'critical or high'],
        ])}
        {field('cvss_min', 'CVSS from', { inputMode: 'decimal' })}
        {field('cvss_max', 'CVSS to', { inputMode: 'decimal' })}
        {field('bcs_min', 'BCS from', { inputMode: 'decimal' })}
        {field('bcs_max', 'BCS to', { inputMode: 'decimal' })}
        {select('kev', 'In KEV', yesNo)}
        {select('has_exploit', 'Exploit or PoC', yesNo)}
        {select('unpatched', 'Unpatched', yesNo)}
        {select('patch_status', 'Patch status', [
          ['', 'any'],
          ['patched', 'patched'],
          ['unpatched', 'unpatched'],
          ['partial', 'partial'],
          ['unknown', 'unknown'],
        ])}
        {field('date_from', 'Published from', { type: 'date' })}
        {field('date_to', 'Published to', { type: 'date' })}
        {select('sort_by', 'Sort', [
          ['', 'newest'],
          ['cvss', 'highest CVSS'],
          ['epss', 'highest EPSS'],
        ])}
        <button type="submit">Search</button> <a href="/cves">Clear</a>
      </form>
      {page ? (
        <>
          <p>{page.total} CVEs</p>
          {canChange(v) && q.protocol ? (
            <p class="watch">
              Every CVE below names {q.protocol}:{' '}
              <WatchButton v={v} type="protocol" id={q.protocol} label={q.protocol} here={here} watched={watched} />
            </p>
          ) : null}
          <ul class="cards" id="cve-cards">
            {page.items.map((c) => (
              <li class="card">
                <h2>
                  <a href={`/cve/${c.cve_id}`}>{c.cve_id}</a>
                </h2>
                <p>{c.title}</p>
                <p>
                  <span class={`badge sev-${c.severity ?? 'NONE'}`}>{c.severity ?? 'not scored'}</span>
                  {c.kev_flagged ? <span class="badge kev">KEV</span> : null}
                  <span class="sub">
                    CVSS {c.cvss_score ?? '—'} · BCS {c.bcs_score} · {c.patch_status} · published{' '}
                    {(c.published_at ?? '').slice(0, 10) || '—'}
                  </span>
                </p>
                <p class="sub">
                  {c.primary_vendor ?? ''} {c.primary_product ?? ''}
                </p>
                {canChange(v) && c.primary_vendor ? (
                  <p class="watch">
                    <WatchButton
                      v={v}
                      type="vendor"
                      id={c.primary_vendor}
                      label={c.primary_vendor}
                      here={here}
                      watched={watched}
                      cve={c.cve_id}
                    />{' '}
                    {c.primary_product ? (
                      <WatchButton
                        v={v}
                        type="product"
                        id={`${c.primary_vendor}/${c.primary_product}`}
                        label={`${c.primary_vendor} ${c.primary_product}`}
                        here={here}
                        watched={watched}
                        cve={c.cve_id}
                      />
                    ) : null}
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
          <nav class="pager" aria-label="Pages">
            {page.page > 1 ? <a href={link(page.page - 1)}>Previous</a> : null}
            <span>
              Page {page.page} of {pages}
            </span>
            {page.page < pages ? <a href={link(page.page + 1)}>Next</a> : null}
          </nav>
        </>
      ) : null}
    </Layout>,
  );
}
