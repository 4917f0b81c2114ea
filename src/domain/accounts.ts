// Account rules (docs/accounts.md), pure: link and session lifetimes, who may remove whom, the deletion
// confirmation text, the purge delay.
import type { Role } from './tiers.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/** A sign-in link is valid for 15 minutes and works once. */
export const LOGIN_LINK_TTL_MS = 15 * MINUTE_MS;
/** A link confirming a new email address: 60 minutes, once. */
export const EMAIL_CHANGE_TTL_MS = 60 * MINUTE_MS;
/** A team invitation: 7 days, once. */
export const INVITATION_TTL_MS = 7 * 24 * HOUR_MS;

/** Sessions end after 12 hours without a request (idle) and 7 days after sign-in whatever the use (absolute). */
export const SESSION_IDLE_MS = 12 * HOUR_MS;
export const SESSION_ABSOLUTE_MS = 7 * 24 * HOUR_MS;
/** last_seen_at is written at most once a minute per session (a read per request, not a write). @alias */
export const SESSION_TOUCH_MS = MINUTE_MS;

/** Sign-in link requests: per email address and per client address, each a fixed window. */
/**
 * Invitation and address-change emails to one recipient address: at most 5 an hour (re-inviting an address, or
 * asking again for an address change, sends a new email each time; without a cap an admin or any signed-in member
 * could fill a stranger's mailbox).
 */
export const RECIPIENT_MAIL_LIMIT = Object.freeze({ points: 5, durationSec: 60 * 60 });

export const LOGIN_LIMITS = Object.freeze({
  perEmail: { points: 5, durationSec: 15 * 60 },
  perAddress: { points: 30, durationSec: 15 * 60 },
});

/** The exact text DELETE /api/v1/account needs in `confirmation` (spec §4.5). */
export const DELETE_CONFIRMATION = 'delete my organization and all its data';

/** Organizations deleted by their owner are purged by the hourly job once this long has passed (spec §3.2). */
export const PURGE_AFTER_MS = 20 * HOUR_MS;

const EMAIL_RE =
  /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** A deliverable-looking address (local@domain.tld, no spaces or header-breaking characters), at most 320 chars. */
export function isEmail(s: string): boolean {
  return s.length <= 320 && EMAIL_RE.test(s);
}

export function normalizeEmail(s: string): string {
  return s.trim().toLowerCase();
}

/** Idle or absolute expiry passed? */
export function sessionExpired(s: { expires_at: Date; last_seen_at: Date }, now: Date): boolean {
  return s.expires_at.getTime() <= now.getTime() || s.last_seen_at.getTime() + SESSION_IDLE_MS <= now.getTime();
}

export type RemovalRefusal = 'owner_cannot_be_removed' | 'role_required';

/**
 * Who may remove a member (spec §5.6): the owner is never removed (not by an admin, not by itself; the owner
 * leaves by deleting the account); owners and admins remove admins and viewers; a viewer removes nobody.
 */
export function removalRefusal(actor: Role, target: Role): RemovalRefusal | null {
  if (target === 'owner') return 'owner_cannot_be_removed';
  if (actor === 'viewer') return 'role_required';
  return null;
}

/** Longest `next` page a sign-in carries. */
export const NEXT_PATH_MAX = 512;

/**
 * The page to land on after signing in (`/login?next=…`), if it is a path of this service: it starts with one `/`
 * (never `//host` or `/\host`, which browsers read as another host, not even once dot segments resolve), holds no
 * backslash, whitespace or control character, and parses against any origin without leaving it. Anything else is
 * null (the account page), so a sign-in link can never send a user to another site. The sign-in also applies it to
 * the path stored with a login token (services/accounts.ts), so a token issued before a rule existed obeys it.
 */
export function safeNextPath(raw: unknown): string | null {
  // Stryker disable next-line ConditionalExpression: safeNextPath's guards overlap: what this check lets through, another check of the path refuses
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > NEXT_PATH_MAX) return null;
  // Stryker disable ConditionalExpression,StringLiteral: safeNextPath's guards overlap: what this check lets through, another check of the path refuses
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (raw[0] !== '/' || raw[1] === '/' || /[\\\s\u0000-\u001f\u007f]/.test(raw)) return null;
  // Stryker restore ConditionalExpression,StringLiteral
  // Stryker disable BlockStatement: new URL with a base never throws for a string that starts with one slash; the catch is there for the type
  let u: URL;
  try {
    u = new URL(raw, 'http://vulnintel.invalid');
  } catch {
    return null;
  }
  // Stryker restore BlockStatement
  // Dot segments resolve before the path is returned: `/.//host` or `/a/..//host` become `//host`, which a browser
  // reads as another host. The resolved path is held to the same rule as the raw one.
  // Stryker disable next-line ConditionalExpression: safeNextPath's guards overlap: what this check lets through, another check of the path refuses
  if (u.origin !== 'http://vulnintel.invalid' || u.pathname.startsWith('//')) return null;
  // Encoded variants are refused too: an encoded slash or backslash, an encoded control character, or a
  // double-encoded anything (%25) in the path; no page of this service has one, and a proxy or client that
  // decodes once more would otherwise see //host or /\host.
  if (/%(?:2f|5c|25|[01][0-9a-f]|7f)/i.test(u.pathname)) return null;
  return `${u.pathname}${u.search}`;
}
