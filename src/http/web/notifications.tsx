// The alert-email preferences page of the signed-in member (docs/accounts.md "Pages"); its form carries the CSRF token.
import { Csrf, html, Layout, when } from './layout.tsx';

export interface NotificationsPageData {
  email: string;
  role: string;
  prefs: {
    email_enabled: boolean;
    min_severity: string | null;
    min_bcs: number | null;
    kev_only: boolean;
    delivery: string;
    customized: boolean;
    updated_at: string | null;
  };
  severities: readonly string[];
  csrf: string;
  error?: string;
  saved?: boolean;
}

/** The member's own alert-email preferences (the same rules as PUT /api/v1/account/notifications). */
export function renderNotificationsPage(d: NotificationsPageData): string {
  const p = d.prefs;
  return html(
    <Layout title="Notifications" current="/account" viewer={{ email: d.email, role: d.role, csrf: d.csrf }}>
      <h1>Alert email</h1>
      <p>
        <a href="/account">Account</a> · Preferences of {d.email}; every threshold set must be met for an alert to be
        emailed.
      </p>
      {d.error ? (
        <p class="danger" role="alert">
          {d.error}
        </p>
      ) : null}
      {d.saved ? (
        <p class="flash">
          <strong>Saved.</strong>
        </p>
      ) : null}
      <form method="post" action="/account/notifications">
        <Csrf token={d.csrf} />
        <p>
          <label>
            <input type="checkbox" name="email_enabled" value="on" checked={p.email_enabled} /> Email me alerts
          </label>
        </p>
        <p>
          <label>
            Minimum severity{' '}
            <select name="min_severity">
              {['', ...d.severities].map((s) => (
                <option value={s} selected={(p.min_severity ?? '') === s}>
                  {s ? `${s} and above` : 'any severity'}
                </option>
              ))}
            </select>
          </label>
        </p>
        <p>
          <label>
            Minimum BCS (0–10, blank for any){' '}
            <input
              name="min_bcs"
              inputMode="decimal"
              size={5}
              maxLength={10}
              value={p.min_bcs === null ? '' : String(p.min_bcs)}
            />
          </label>
        </p>
        <p>
          <label>
            <input type="checkbox" name="kev_only" value="on" checked={p.kev_only} /> Only CVEs in CISA KEV
          </label>
        </p>
        <fieldset>
          <legend>Delivery</legend>
          <label>
            <input type="radio" name="delivery" value="instant" checked={p.delivery === 'instant'} /> one email per
            alert
          </label>{' '}
          <label>
            <input type="radio" name="delivery" value="daily_digest" checked={p.delivery === 'daily_digest'} /> one
            daily digest
          </label>
        </fieldset>
        <p>
          <button type="submit">Save</button>
        </p>
      </form>
      <p class="note">
        {p.customized && p.updated_at ? `Last saved ${when(p.updated_at)} UTC.` : 'Not saved yet: the defaults apply.'}
      </p>
    </Layout>,
  );
}
