// Sign-in by email link, sessions and the organizations a person can switch between (docs/accounts.md "Sign-in").
import { RateLimiterRes } from 'rate-limiter-flexible';
import { ACCOUNT_STATUSES, oneOf } from '../stored-values.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { isRemovedMember } from '../../lib/db-errors.ts';
import { findPersonByEmail, getPerson, membershipsOf } from '../../store/accounts.ts';
import { consumeAuthToken, revokePersonSessions, revokeSessionByHash } from '../../store/account-sessions.ts';
import { isEmail, normalizeEmail, safeNextPath } from '../../domain/accounts.ts';
import type { Principal } from '../identity.ts';
import { AccountError } from '../account-errors.ts';
import type { AccountsContext, NewSession } from './context.ts';

export function sessionsPart(ctx: AccountsContext) {
  const { db, clock, perEmail, perAddress, sendLater, issueLoginToken, startSession, personOf } = ctx;
  return {
    /**
     * Sends a sign-in link to the address if a person has it, and nothing otherwise; the caller answers the same
     * in both cases. Counts against the per-email and per-address limits either way. `next`: the page the link
     * lands on, kept with the token when it is a local path (safeNextPath), else the account page.
     */
    async requestLogin(rawEmail: string, clientAddress: string, next?: string): Promise<void> {
      const email = normalizeEmail(rawEmail);
      for (const [limiter, key, what] of [
        [perAddress, clientAddress, 'address'],
        [perEmail, sha256Hex(email), 'email address'],
      ] as const) {
        try {
          await limiter.consume(key, 1);
        } catch (r) {
          if (!(r instanceof RateLimiterRes)) throw r;
          const ms = r.msBeforeNext;
          throw new AccountError('rate_limited', `Too many sign-in requests for this ${what}; try again later`, {
            retry_after: Math.max(1, Math.ceil(ms / 1000)),
          });
        }
      }
      if (!isEmail(email)) return;
      const person = await findPersonByEmail(db, email);
      if (!person) return;
      const url = await issueLoginToken(person, safeNextPath(next));
      sendLater({
        kind: 'login',
        to: person.email,
        link: url,
        subject: 'Your Vulnintel sign-in link',
        text: `Sign in to Vulnintel with this link (valid for 15 minutes, once):\n\n${url}\n\nIf you did not ask for it, ignore this message.\n`,
      });
    },

    /** `vulnintel login-link`: a sign-in link for an operator to hand over; null when no person has the address. */
    async loginLinkFor(rawEmail: string): Promise<string | null> {
      const person = await findPersonByEmail(db, normalizeEmail(rawEmail));
      return person ? issueLoginToken(person) : null;
    },

    /**
     * Follows a sign-in link: a new session in the person's last-used organization if it is still active and the
     * person still a member, else in its first active organization.
     */
    async completeLogin(token: string): Promise<NewSession & { next: string | null }> {
      const t = await consumeAuthToken(db, sha256Hex(token), 'login', clock.now());
      if (!t)
        throw new AccountError(
          'login_link_invalid',
          'This sign-in link is invalid, expired or already used; request a new one',
        );
      const person = await getPerson(db, t.person_id);
      const ms = person ? (await membershipsOf(db, person.id)).filter((m) => m.status === 'active') : [];
      if (!person || ms.length === 0)
        throw new AccountError('no_active_organization', 'This person belongs to no active organization');
      const m = ms.find((x) => x.org_id === person.last_org_id) ?? ms[0];
      return { ...(await startSession(person.id, m.org_id, m.member_id)), next: safeNextPath(t.next_path) };
    },

    async logout(sessionToken: string): Promise<boolean> {
      return (await revokeSessionByHash(db, sha256Hex(sessionToken), clock.now())) > 0;
    },

    /** Ends every session of the calling person, in every organization. */
    async logoutEverywhere(p: Principal): Promise<number> {
      const person = await personOf(p);
      return revokePersonSessions(db, person.id, clock.now());
    },

    async memberships(p: Principal) {
      const person = await personOf(p);
      return (await membershipsOf(db, person.id)).map((m) => ({
        org_id: m.org_id,
        org_name: m.org_name,
        role: m.role,
        tier: m.tier,
        status: oneOf(ACCOUNT_STATUSES, m.status, 'organization status'),
        current: m.org_id === p.orgId,
      }));
    },

    /** Moves the caller to another of its organizations: the current session ends, a new one starts there. */
    async switchOrganization(p: Principal, sessionToken: string, orgId: number): Promise<NewSession> {
      const person = await personOf(p);
      const m = (await membershipsOf(db, person.id)).find((x) => x.org_id === orgId && x.status === 'active');
      const notMember = new AccountError('not_a_member', 'You are not a member of an active organization with this id');
      if (!m) throw notMember;
      // One transaction: a membership removed meanwhile leaves the current session as it was (no sign-out, no 500).
      try {
        return await startSession(person.id, m.org_id, m.member_id, sessionToken);
      } catch (e) {
        if (isRemovedMember(e)) throw notMember;
        throw e;
      }
    },
  };
}
