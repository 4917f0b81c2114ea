// The account pages (docs/accounts.md "Pages"): sign-in, "check your email", the account page (organization,
// plan, member usage, your name and sign-in address, sign out (here or everywhere), team with invite and remove, API keys with create (shown once) and revoke, deletion with the
// confirmation text) and the alert-email preferences. Server-rendered, no JavaScript, every value escaped; every form carries the CSRF token.
import { esc } from './cve-html.ts';
import { TIER_PERMISSIONS, type Tier } from '../../domain/tiers.ts';
import type { TrialStatus } from '../../domain/keys.ts';

const CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:0 auto;padding:1rem 1.5rem;color:#1b1f24}
h1{font-size:1.5rem}h2{font-size:1.15rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:1.6rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #eaeef2}
form.inline{display:inline}input,select,button{font:inherit;padding:.2rem .4rem}.note{color:#57606a}
.secret{font-family:monospace;background:#fff8c5;padding:.4rem;word-break:break-all}.danger{color:#a40e26}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · Vulnintel</title><style>${CSS}</style></head><body>${body}</body></html>`;
}

const csrfField = (csrf: string) => `<input type="hidden" name="_csrf" value="${esc(csrf)}">`;

export function renderLoginPage(error?: string, next?: string | null): string {
  return page('Sign in', `<h1>Sign in to Vulnintel</h1>
${error ? `<p class="danger">${esc(error)}</p>` : ''}
${next ? '<p class="note">Sign in to open that page.</p>' : ''}
<form method="post" action="/login"><label>Email address <input type="email" name="email" required maxlength="320" autocomplete="email"></label>
${next ? `<input type="hidden" name="next" value="${esc(next)}">` : ''}
<button type="submit">Email me a sign-in link</button></form>
<p class="note">We send a link valid for 15 minutes, usable once. No password.</p>`);
}

/** Headings of the error page by status: what happened, in the reader's words. */
const ERROR_HEADINGS: Record<number, string> = {
  400: 'That request could not be read', 401: 'Sign in again', 403: 'Not allowed', 404: 'Not found',
  405: 'Not available here', 409: 'Not possible now', 410: 'No longer available', 413: 'Too large', 422: 'Please check what you sent',
  429: 'Too many requests', 503: 'Unavailable for a moment',
};

/**
 * The error page a browser gets where a page, or a link followed from an email, is refused (docs/accounts.md
 * "Pages"): the heading, the envelope's message and field problems, the request id, and the ways on (sign in, the
 * account page). API clients keep the JSON envelope.
 */
export function renderErrorPage(e: { status: number; message: string; fields: { field: string; message: string }[]; requestId: string; retryAfter: number | null }): string {
  const heading = ERROR_HEADINGS[e.status] ?? (e.status >= 500 ? 'Something went wrong on our side' : 'That did not work');
  return page(heading, `<h1>${esc(heading)}</h1>
<p class="danger">${esc(e.message)}</p>
${e.fields.length ? `<ul>${e.fields.map((f) => `<li><code>${esc(f.field)}</code>: ${esc(f.message)}</li>`).join('')}</ul>` : ''}
${e.retryAfter !== null ? `<p>Try again in ${e.retryAfter} seconds.</p>` : ''}
<p><a href="/login">Sign in</a> · <a href="/account">Your account</a></p>
<p class="note">Request id ${esc(e.requestId)} (${e.status}).</p>`);
}

export function renderCheckEmailPage(): string {
  return page('Check your email', `<h1>Check your email</h1>
<p>If an account uses this address, a sign-in link is on its way. It is valid for 15 minutes and works once.</p>
<p><a href="/login">Back to sign-in</a></p>`);
}

export interface AccountPageData {
  me: { email: string; name: string; role: string };
  org: { name: string; tier: Tier; caps: { members: number } };
  team: { members: { id: number; email: string; name: string; role: string }[]; invitations: { id: number; email: string; role: string; expires_at: string }[] };
  keys: { id: number; key_start: string; kind: string; scopes: string[]; label: string | null; revoked_at: string | null }[] | null;
  csrf: string;
  /** A key just created: shown once. */
  newKey?: string;
  /** The free API trial just started (Free plan): its key, shown once, and its end. */
  trialKey?: { key: string; ends_at: string };
  /** Where the Free plan's trial stands (null on other plans). */
  trial?: TrialStatus | null;
  notice?: string;
  deleteConfirmation: string;
}

const cap = (n: number) => (n < 0 ? 'no cap' : String(n));

export function renderAccountPage(d: AccountPageData): string {
  const admin = d.me.role === 'owner' || d.me.role === 'admin';
  const used = d.team.members.length + d.team.invitations.length;
  const members = d.team.members.map((m) => `<tr><td>${esc(m.email)}</td><td>${esc(m.name)}</td><td>${esc(m.role)}</td><td>${
    admin && m.role !== 'owner' ? `<form class="inline" method="post" action="/account/team/${m.id}/remove">${csrfField(d.csrf)}<button type="submit">Remove</button></form>` : ''}</td></tr>`).join('');
  const invites = d.team.invitations.map((i) => `<tr><td>${esc(i.email)}</td><td>(invited)</td><td>${esc(i.role)}</td><td class="note">until ${esc(i.expires_at.slice(0, 10))}${
    admin ? ` <form class="inline" method="post" action="/account/team/invitations/${i.id}/withdraw">${csrfField(d.csrf)}<button type="submit">Withdraw</button></form>` : ''}</td></tr>`).join('');
  // No key list: below Professional, or a viewer (who may not manage keys whatever the plan).
  const keysTier = TIER_PERMISSIONS[d.org.tier].api_keys;
  // The Free plan's one API trial (POST /api/v1/account/trial needs a session, so the page is where it starts).
  const when = (iso: string | null) => esc((iso ?? '').slice(0, 16).replace('T', ' '));
  const ENDED: Record<string, string> = { expired: 'its 14 days have passed', ended: 'it was ended early', limit: 'its asset checks are used up' };
  const t = d.trial;
  const trial = d.trialKey
    ? `<p>Your free API trial key (shown once; store it now). It works until ${when(d.trialKey.ends_at)} UTC, for up to 750 asset checks, 25 per request, on the asset-correlation endpoints and the CVE detail:</p><p class="secret" id="trial-key">${esc(d.trialKey.key)}</p>`
    : t?.status === 'active'
      ? `<p id="trial">Free API trial: active until ${when(t.ends_at)} UTC; ${t.used} of ${t.total_checks} asset checks used, ${t.remaining} left (${t.per_request} per request).</p>`
      : t?.status === 'ended'
        ? `<p id="trial">Free API trial: ended (${esc(ENDED[t.reason ?? 'ended'])}); ${t.used} of ${t.total_checks} asset checks were used. Upgrade to Professional for API keys.</p>`
        : d.org.tier === 'free' && admin
          ? `<form method="post" action="/account/trial">${csrfField(d.csrf)}<button type="submit">Start the free API trial</button></form>
<p class="note">Once per organization: a key for 14 days, up to 750 asset checks (25 per request), shown once.</p>`
          : '';
  const keys = d.keys === null
    ? `<p class="note">${keysTier && !admin ? 'Owners and admins manage the API keys of this organization.' : `API keys are available on the Professional plan and above${admin ? '' : ' (owners and admins manage them)'}.`}</p>${trial}`
    : `${d.newKey ? `<p>Your new key (shown once; store it now):</p><p class="secret" id="new-key">${esc(d.newKey)}</p>` : ''}
<table><thead><tr><th>Key</th><th>Kind</th><th>Scopes</th><th>Label</th><th></th></tr></thead><tbody>${d.keys.map((k) => `<tr><td><code>${esc(k.key_start)}…</code></td><td>${esc(k.kind)}</td><td>${esc(k.scopes.join(', '))}</td><td>${esc(k.label)}</td><td>${
      k.revoked_at ? 'revoked' : `<form class="inline" method="post" action="/account/keys/${k.id}/revoke">${csrfField(d.csrf)}<button type="submit">Revoke</button></form>`}</td></tr>`).join('')}</tbody></table>
<form method="post" action="/account/keys">${csrfField(d.csrf)}<label>Label <input name="label" maxlength="200"></label>
<select name="scope"><option value="read">read</option><option value="write">read and write</option></select> <button type="submit">Create key</button></form>`;
  return page('Account', `<h1>${esc(d.org.name)}</h1>
${d.notice ? `<p><strong>${esc(d.notice)}</strong></p>` : ''}
<p>Signed in as ${esc(d.me.email)} (${esc(d.me.role)}). <a href="/account/notifications">Alert email preferences</a> · <a href="/training">Training</a> · <form class="inline" method="post" action="/logout">${csrfField(d.csrf)}<button type="submit">Sign out</button></form>
<form class="inline" method="post" action="/logout-all">${csrfField(d.csrf)}<button type="submit">Sign out everywhere</button></form></p>
<h2>You</h2>
<form method="post" action="/account/profile">${csrfField(d.csrf)}<label>Name <input name="name" maxlength="200" value="${esc(d.me.name)}" autocomplete="name"></label> <button type="submit">Save name</button></form>
<form method="post" action="/account/profile">${csrfField(d.csrf)}<label>Sign-in address <input type="email" name="email" required maxlength="320" value="${esc(d.me.email)}" autocomplete="email"></label> <button type="submit">Change address</button></form>
<p class="note">A new address applies once the link sent to it is followed (60 minutes); then every session ends. Sending your current address cancels a pending change.</p>
<h2>Plan and usage</h2>
<table><tbody><tr><th>Plan</th><td>${esc(d.org.tier)}</td></tr><tr><th>Members</th><td>${used} of ${esc(cap(d.org.caps.members))} (pending invitations included)</td></tr></tbody></table>
<h2>Team</h2>
<table><thead><tr><th>Email</th><th>Name</th><th>Role</th><th></th></tr></thead><tbody>${members}${invites}</tbody></table>
${admin ? `<form method="post" action="/account/team/invite">${csrfField(d.csrf)}<label>Invite <input type="email" name="email" required maxlength="320"></label>
<select name="role"><option value="viewer">viewer</option><option value="admin">admin</option></select> <button type="submit">Send invitation</button></form>` : ''}
<h2>API keys</h2>
${keys}
${d.me.role === 'owner' ? `<h2 class="danger">Delete the organization</h2>
<p>This deactivates the organization at once and purges all its data within 24 hours. Type <code>${esc(d.deleteConfirmation)}</code> to confirm.</p>
<form method="post" action="/account/delete">${csrfField(d.csrf)}<input name="confirmation" size="45" maxlength="200" required> <button type="submit" class="danger">Delete</button></form>` : ''}`);
}

export function renderMessagePage(title: string, message: string, back = '/account'): string {
  return page(title, `<h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="${esc(back)}">Back</a></p>`);
}

export interface NotificationsPageData {
  email: string;
  prefs: {
    email_enabled: boolean; min_severity: string | null; min_bcs: number | null; kev_only: boolean; delivery: string;
    customized: boolean; updated_at: string | null;
  };
  severities: readonly string[];
  csrf: string;
  error?: string;
  saved?: boolean;
}

const checked = (on: boolean) => (on ? ' checked' : '');
const selected = (on: boolean) => (on ? ' selected' : '');

/** The member's own alert-email preferences (the same rules as PUT /api/v1/account/notifications). */
export function renderNotificationsPage(d: NotificationsPageData): string {
  const p = d.prefs;
  const sev = ['', ...d.severities].map((s) => `<option value="${esc(s)}"${selected((p.min_severity ?? '') === s)}>${s ? `${esc(s)} and above` : 'any severity'}</option>`).join('');
  return page('Notifications', `<h1>Alert email</h1>
<p><a href="/account">Account</a> · Preferences of ${esc(d.email)}; every threshold set must be met for an alert to be emailed.</p>
${d.error ? `<p class="danger" role="alert">${esc(d.error)}</p>` : ''}
${d.saved ? '<p><strong>Saved.</strong></p>' : ''}
<form method="post" action="/account/notifications">${csrfField(d.csrf)}
<p><label><input type="checkbox" name="email_enabled" value="on"${checked(p.email_enabled)}> Email me alerts</label></p>
<p><label>Minimum severity <select name="min_severity">${sev}</select></label></p>
<p><label>Minimum BCS (0–10, blank for any) <input name="min_bcs" inputmode="decimal" size="5" maxlength="10" value="${p.min_bcs === null ? '' : esc(String(p.min_bcs))}"></label></p>
<p><label><input type="checkbox" name="kev_only" value="on"${checked(p.kev_only)}> Only CVEs in CISA KEV</label></p>
<p>Delivery: <label><input type="radio" name="delivery" value="instant"${checked(p.delivery === 'instant')}> one email per alert</label>
<label><input type="radio" name="delivery" value="daily_digest"${checked(p.delivery === 'daily_digest')}> one daily digest</label></p>
<p><button type="submit">Save</button></p></form>
<p class="note">${p.customized && p.updated_at ? `Last saved ${esc(p.updated_at.slice(0, 16).replace('T', ' '))} UTC.` : 'Not saved yet: the defaults apply.'}</p>`);
}
