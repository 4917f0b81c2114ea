// The account page (docs/accounts.md "Pages"): organization, plan, member usage, your name and sign-in address, sign
// out here or everywhere, team with invite and remove, API keys with create (shown once) and revoke, the Free plan's
// trial, and deletion with the confirmation text. Every form carries the CSRF token.
import { TIER_PERMISSIONS, type Tier } from '../../domain/tiers.ts';
import type { TrialStatus } from '../../domain/keys.ts';
import { Csrf, html, Layout, when, type Viewer, Scroll } from './layout.tsx';

export interface AccountPageData {
  me: { email: string; name: string; role: string };
  org: { name: string; tier: Tier; caps: { members: number } };
  team: {
    members: { id: number; email: string; name: string; role: string }[];
    invitations: { id: number; email: string; role: string; expires_at: string }[];
  };
  keys:
    | {
        id: number;
        key_start: string;
        kind: string;
        scopes: string[];
        label: string | null;
        revoked_at: string | null;
      }[]
    | null;
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
const ENDED: Record<string, string> = {
  expired: 'its 14 days have passed',
  ended: 'it was ended early',
  limit: 'its asset checks are used up',
};

function Trial({ d, admin }: { d: AccountPageData; admin: boolean }) {
  const t = d.trial;
  if (d.trialKey) {
    return (
      <>
        <p>
          Your free API trial key (shown once; store it now). It works until {when(d.trialKey.ends_at)} UTC, for up to
          750 asset checks, 25 per request, on the asset-correlation endpoints and the CVE detail:
        </p>
        <p class="secret" id="trial-key">
          {d.trialKey.key}
        </p>
      </>
    );
  }
  if (t?.status === 'active')
    return (
      <p id="trial">
        Free API trial: active until {when(t.ends_at)} UTC; {t.used} of {t.total_checks} asset checks used,{' '}
        {t.remaining} left ({t.per_request} per request).
      </p>
    );
  if (t?.status === 'ended')
    return (
      <p id="trial">
        Free API trial: ended ({ENDED[t.reason ?? 'ended']}); {t.used} of {t.total_checks} asset checks were used.
        Upgrade to Professional for API keys.
      </p>
    );
  if (d.org.tier === 'free' && admin) {
    return (
      <>
        <form method="post" action="/account/trial">
          <Csrf token={d.csrf} />
          <button type="submit">Start the free API trial</button>
        </form>
        <p class="note">
          Once per organization: a key for 14 days, up to 750 asset checks (25 per request), shown once.
        </p>
      </>
    );
  }
  return null;
}

function Keys({ d, admin }: { d: AccountPageData; admin: boolean }) {
  // No key list: below Professional, or a viewer (who may not manage keys whatever the plan).
  const keysTier = TIER_PERMISSIONS[d.org.tier].api_keys;
  if (d.keys === null) {
    return (
      <>
        <p class="note">
          {keysTier && !admin
            ? 'Owners and admins manage the API keys of this organization.'
            : `API keys are available on the Professional plan and above${admin ? '' : ' (owners and admins manage them)'}.`}
        </p>
        <Trial d={d} admin={admin} />
      </>
    );
  }
  return (
    <>
      {d.newKey ? (
        <>
          <p>Your new key (shown once; store it now):</p>
          <p class="secret" id="new-key">
            {d.newKey}
          </p>
        </>
      ) : null}
      <Scroll label="API keys">
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>Kind</th>
              <th>Scopes</th>
              <th>Label</th>
              <th>
                <span class="skip">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {d.keys.map((k) => (
              <tr>
                <td>
                  <code>{k.key_start}…</code>
                </td>
                <td>{k.kind}</td>
                <td>{k.scopes.join(', ')}</td>
                <td>{k.label}</td>
                <td>
                  {k.revoked_at ? (
                    'revoked'
                  ) : (
                    <form class="inline" method="post" action={`/account/keys/${k.id}/revoke`}>
                      <Csrf token={d.csrf} />
                      <button type="submit">Revoke</button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <form method="post" action="/account/keys">
        <Csrf token={d.csrf} />
        <label>
          Label <input name="label" maxLength={200} />
        </label>{' '}
        <label>
          Scope{' '}
          <select name="scope">
            <option value="read">read</option>
            <option value="write">read and write</option>
          </select>
        </label>{' '}
        <button type="submit">Create key</button>
      </form>
    </>
  );
}

export function renderAccountPage(d: AccountPageData): string {
  const admin = d.me.role === 'owner' || d.me.role === 'admin';
  const used = d.team.members.length + d.team.invitations.length;
  const viewer: Viewer = { email: d.me.email, role: d.me.role, csrf: d.csrf };
  return html(
    <Layout title="Account" current="/account" viewer={viewer}>
      <h1>{d.org.name}</h1>
      {d.notice ? (
        <p class="flash">
          <strong>{d.notice}</strong>
        </p>
      ) : null}
      <p>
        Signed in as {d.me.email} ({d.me.role}). <a href="/account/notifications">Alert email preferences</a> ·{' '}
        <a href="/training">Training</a>
      </p>
      <p>
        <form class="inline" method="post" action="/logout-all">
          <Csrf token={d.csrf} />
          <button type="submit" class="secondary">
            Sign out everywhere
          </button>
        </form>
      </p>
      <h2>You</h2>
      <form method="post" action="/account/profile">
        <Csrf token={d.csrf} />
        <label>
          Name <input name="name" maxLength={200} value={d.me.name} autoComplete="name" />
        </label>{' '}
        <button type="submit">Save name</button>
      </form>
      <form method="post" action="/account/profile">
        <Csrf token={d.csrf} />
        <label>
          Sign-in address{' '}
          <input type="email" name="email" required maxLength={320} value={d.me.email} autoComplete="email" />
        </label>{' '}
        <button type="submit">Change address</button>
      </form>
      <p class="note">
        A new address applies once the link sent to it is followed (60 minutes); then every session ends. Sending your
        current address cancels a pending change.
      </p>
      <h2>Plan and usage</h2>
      <table>
        <tbody>
          <tr>
            <th scope="row">Plan</th>
            <td>{d.org.tier}</td>
          </tr>
          <tr>
            <th scope="row">Members</th>
            <td>
              {used} of {cap(d.org.caps.members)} (pending invitations included)
            </td>
          </tr>
        </tbody>
      </table>
      <h2>Team</h2>
      <Scroll label="Team members">
        <table>
          <thead>
            <tr>
              <th>Email</th>
              <th>Name</th>
              <th>Role</th>
              <th>
                <span class="skip">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {d.team.members.map((m) => (
              <tr>
                <td>{m.email}</td>
                <td>{m.name}</td>
                <td>{m.role}</td>
                <td>
                  {admin && m.role !== 'owner' ? (
                    <form class="inline" method="post" action={`/account/team/${m.id}/remove`}>
                      <Csrf token={d.csrf} />
                      <button type="submit">Remove</button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
            {d.team.invitations.map((i) => (
              <tr>
                <td>{i.email}</td>
                <td>(invited)</td>
                <td>{i.role}</td>
                <td class="note">
                  until {i.expires_at.slice(0, 10)}
                  {admin ? (
                    <>
                      {' '}
                      <form class="inline" method="post" action={`/account/team/invitations/${i.id}/withdraw`}>
                        <Csrf token={d.csrf} />
                        <button type="submit">Withdraw</button>
                      </form>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {admin ? (
        <form method="post" action="/account/team/invite">
          <Csrf token={d.csrf} />
          <label>
            Invite <input type="email" name="email" required maxLength={320} />
          </label>{' '}
          <label>
            Role{' '}
            <select name="role">
              <option value="viewer">viewer</option>
              <option value="admin">admin</option>
            </select>
          </label>{' '}
          <button type="submit">Send invitation</button>
        </form>
      ) : null}
      <h2>API keys</h2>
      <Keys d={d} admin={admin} />
      {d.me.role === 'owner' ? (
        <>
          <h2 class="danger">Delete the organization</h2>
          <p>
            This deactivates the organization at once and purges all its data within 24 hours. Type{' '}
            <code>{d.deleteConfirmation}</code> to confirm.
          </p>
          <form method="post" action="/account/delete">
            <Csrf token={d.csrf} />
            <label>
              Confirmation <input name="confirmation" size={45} maxLength={200} required />
            </label>{' '}
            <button type="submit" class="danger">
              Delete
            </button>
          </form>
        </>
      ) : null}
    </Layout>,
  );
}
