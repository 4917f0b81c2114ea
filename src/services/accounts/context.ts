// What the parts of the accounts service share (services/accounts.ts puts them together): the store, the clock,
// the mailer and the login and mail limiters, and the helpers every part uses (links, mail sent after the answer,
// the caller's person and organization, a new session).
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../../lib/clock.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTx, type Db, type Store } from '../../store/db.ts';
import { postgresLimiter } from '../../store/rate-limits.ts';
import { getOrg, getPerson, personIdOfMember, setLastOrg, type OrgRow, type PersonRow } from '../../store/accounts.ts';
import { createSession, insertAuthToken, revokeSessionByHash } from '../../store/account-sessions.ts';
import { LOGIN_LIMITS, LOGIN_LINK_TTL_MS, RECIPIENT_MAIL_LIMIT, SESSION_ABSOLUTE_MS } from '../../domain/accounts.ts';
import type { PlanCapsTable } from '../../domain/plan-caps.ts';
import type { Mailer } from '../mailer.ts';
import type { Principal } from '../identity.ts';
import { AccountError } from '../account-errors.ts';

export interface NewSession {
  /** The session cookie's value (shown to the browser once; stored as its SHA-256). */
  token: string;
  orgId: number;
  memberId: number;
}

export interface AccountsDeps {
  store: Store;
  clock: Clock;
  mailer: Mailer;
  publicUrl: string;
  /** The plan caps (config.planCaps: VULNINTEL_PLAN_CAPS over src/domain/plan-caps.ts). */
  planCaps: Readonly<PlanCapsTable>;
  /** Reports a failed email send (sent after the answer, so a slow SMTP server tells nothing about an address). */
  warn: (msg: string, err: Error) => void;
}

export type AccountsContext = ReturnType<typeof accountsContext>;

export function accountsContext(deps: AccountsDeps) {
  const db: Db = deps.store.db;
  const { clock, mailer } = deps;
  const perEmail = postgresLimiter(deps.store, 'login_email', LOGIN_LIMITS.perEmail);
  const perAddress = postgresLimiter(deps.store, 'login_addr', LOGIN_LIMITS.perAddress);
  const perRecipient = postgresLimiter(deps.store, 'mail_to', RECIPIENT_MAIL_LIMIT);
  /** Counts one invitation or address-change email to `email` (RECIPIENT_MAIL_LIMIT); refused past the limit. */
  async function chargeRecipient(email: string): Promise<void> {
    try {
      await perRecipient.consume(sha256Hex(email), 1);
    } catch (r) {
      if (!(r instanceof RateLimiterRes)) throw r;
      const ms = r.msBeforeNext;
      throw new AccountError(
        'rate_limited',
        `Too many emails to ${email} in the last hour (at most ${RECIPIENT_MAIL_LIMIT.points}); try again later`,
        { retry_after: Math.max(1, Math.ceil(ms / 1000)) },
      );
    }
  }
  const link = (path: string, token: string) => `${deps.publicUrl}${path}?token=${encodeURIComponent(token)}`;

  function sendLater(mail: Parameters<Mailer['send']>[0]) {
    mailer.send(mail).catch((e: Error) => deps.warn(`email (${mail.kind}) not sent`, e));
  }

  async function issueLoginToken(person: PersonRow, nextPath: string | null = null): Promise<string> {
    const token = randomToken();
    const now = clock.now();
    await insertAuthToken(db, {
      tokenHash: sha256Hex(token),
      purpose: 'login',
      personId: person.id,
      nextPath,
      expiresAt: new Date(now.getTime() + LOGIN_LINK_TTL_MS),
    });
    return link('/api/v1/auth/callback', token);
  }

  /** A new session of the member; `replacing`: the session token it replaces, ended in the same transaction. */
  async function startSession(
    personId: number,
    orgId: number,
    memberId: number,
    replacing?: string,
  ): Promise<NewSession> {
    const token = randomToken();
    const now = clock.now();
    await withTx(db, async (trx) => {
      if (replacing !== undefined) await revokeSessionByHash(trx, sha256Hex(replacing), now);
      await createSession(trx, orgId, memberId, sha256Hex(token), now, new Date(now.getTime() + SESSION_ABSOLUTE_MS));
      await setLastOrg(trx, personId, orgId);
    });
    return { token, orgId, memberId };
  }

  async function personOf(p: Principal): Promise<PersonRow> {
    const personId = await personIdOfMember(db, p.orgId, p.memberId);
    const person = personId === undefined ? undefined : await getPerson(db, personId);
    if (!person) throw new AccountError('not_a_member', 'The member of this credential no longer exists');
    return person;
  }

  async function orgOf(p: Principal): Promise<OrgRow> {
    const o = await getOrg(db, p.orgId);
    if (!o) throw new AccountError('not_found', 'No such organization');
    return o;
  }

  return {
    db,
    clock,
    planCaps: deps.planCaps,
    perEmail,
    perAddress,
    chargeRecipient,
    link,
    sendLater,
    issueLoginToken,
    startSession,
    personOf,
    orgOf,
  };
}
