// The signed-in app's alerts inbox: the organization's alerts, filtered by priority, environment, kind of change and
// read or unread, each marked read or unread by the member. Every form posts with the CSRF token.
import type { Environment } from '../../services/environments.ts';
import { Csrf, html, Layout, type Viewer } from './layout.tsx';
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
