// The caller's profile: name, preferences and the sign-in address, changed only once confirmed (docs/accounts.md
// "Email address").
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTx } from '../../store/db.ts';
import {
  findPersonByEmail,
  getPerson,
  memberProfile,
  setPersonEmail,
  teammateNamesLocked,
  updatePerson,
} from '../../store/accounts.ts';
import {
  consumeAuthToken,
  insertAuthToken,
  revokeEmailChanges,
  revokeLoginLinks,
  revokePersonSessions,
} from '../../store/account-sessions.ts';
import { EMAIL_CHANGE_TTL_MS, isEmail, normalizeEmail } from '../../domain/accounts.ts';
import { TIER_PERMISSIONS } from '../../domain/tiers.ts';
import { confusableWith } from '../../domain/names.ts';
import { invalidInput } from '../refusal.ts';
import type { Principal } from '../identity.ts';
import { AccountError, iso } from '../account-errors.ts';
import type { AccountsContext } from './context.ts';
import { errorField } from '../../lib/errors.ts';

/** Keys a person's stored preferences may hold (docs/accounts.md). */
export const MAX_PREFERENCE_KEYS = 32;

/**
 * A profile name that looks like another member's of one of the person's organizations (domain/names.ts): 422 on
 * body.name (value_error.confusable), nothing stored. The same name exactly is allowed (two people may share one).
 */
function confusableName(existing: string) {
  const message = `looks like the name "${existing}" of another member of your organization (the same letters from another script, full-width, or invisible marks); choose a name that reads differently`;
  return invalidInput(`name: ${message}`, [{ field: 'body.name', message, type: 'value_error.confusable' }]);
}

export function profilePart(ctx: AccountsContext) {
  const { db, clock, chargeRecipient, link, sendLater, personOf } = ctx;
  return {
    async me(p: Principal) {
      // One statement (it runs on every account page and GET /account/me; docs/benchmarks.md).
      const m = await memberProfile(db, p.orgId, p.memberId);
      if (!m) throw new AccountError('not_a_member', 'The member of this credential no longer exists');
      return {
        id: p.memberId,
        email: m.email,
        name: m.name,
        tier: m.tier,
        org_id: m.org_id,
        org_name: m.org_name,
        created_at: iso(m.created_at)!,
        permissions: { ...TIER_PERMISSIONS[m.tier] },
        role: p.role,
        preferences: m.preferences,
      };
    },

    /**
     * Name and preferences now; a new email address only once confirmed through the link sent to it. The sign-in
     * address is the person's in every organization, so only a browser session may change it (an API key belongs to
     * one organization, and would otherwise become a sign-in anywhere: docs/accounts.md "Email address"). A new
     * request, or the current address sent back, ends every earlier link; the current address is told of a request.
     */
    async updateMe(p: Principal, input: { name?: string; preferences?: Record<string, unknown>; email?: string }) {
      const person = await personOf(p);
      let pendingEmail: string | null = null;
      let emailGiven = false;
      if (input.email !== undefined) {
        const email = normalizeEmail(input.email);
        if (!isEmail(email))
          throw new AccountError('invalid_email', 'email is not a valid email address', { field: 'email' });
        if (p.via !== 'session')
          throw new AccountError(
            'session_required',
            'The sign-in email address can be changed from a browser session only; API keys are rejected for it',
          );
        emailGiven = true;
        if (email !== person.email) pendingEmail = email;
      }
      // Before anything is stored: a refused request changes nothing.
      if (pendingEmail) await chargeRecipient(pendingEmail);
      await withTx(db, async (trx) => {
        if (input.name !== undefined && input.name !== person.name) {
          const existing = confusableWith(input.name, await teammateNamesLocked(trx, person.id));
          if (existing !== null) throw confusableName(existing);
        }
        const keys = await updatePerson(trx, person.id, { name: input.name, preferences: input.preferences });
        if (keys !== null && keys > MAX_PREFERENCE_KEYS) {
          throw new AccountError(
            'too_many_preferences',
            `preferences would hold ${keys} keys; at most ${MAX_PREFERENCE_KEYS} are stored (a null value removes a key)`,
          );
        }
        if (emailGiven) await revokeEmailChanges(trx, person.id, clock.now());
        if (pendingEmail) {
          const token = randomToken();
          await insertAuthToken(trx, {
            tokenHash: sha256Hex(token),
            purpose: 'email_change',
            personId: person.id,
            newEmail: pendingEmail,
            expiresAt: new Date(clock.now().getTime() + EMAIL_CHANGE_TTL_MS),
          });
          const url = link('/api/v1/auth/confirm-email', token);
          sendLater({
            kind: 'email_change',
            to: pendingEmail,
            link: url,
            subject: 'Confirm your new Vulnintel email address',
            text: `Confirm that this address becomes your Vulnintel sign-in address (valid for 60 minutes, once):\n\n${url}\n\nIf you did not ask for it, ignore this message.\n`,
          });
          sendLater({
            kind: 'email_change_notice',
            to: person.email,
            subject: 'Your Vulnintel sign-in address is being changed',
            text: `A change of your Vulnintel sign-in address to ${pendingEmail} was requested from a signed-in session. It takes effect only when the link sent to that address is followed (within 60 minutes).\n\nIf this was not you, sign in and set your address back (which cancels the change), and sign out everywhere from your account page.\n`,
          });
        }
      });
      return { ...(await this.me(p)), pending_email: pendingEmail };
    },

    /**
     * Follows an email-change link: the person's address becomes the new one, the former address is told, and the
     * person's sessions and unused sign-in links end everywhere (sign in again with the new address).
     */
    async confirmEmail(token: string): Promise<void> {
      const now = clock.now();
      const former = await withTx(db, async (trx) => {
        const t = await consumeAuthToken(trx, sha256Hex(token), 'email_change', now);
        if (!t)
          throw new AccountError('login_link_invalid', 'This confirmation link is invalid, expired or already used');
        const taken = await findPersonByEmail(trx, t.new_email!);
        if (taken && taken.id !== t.person_id)
          throw new AccountError('email_taken', 'Another account already uses this email address');
        const before = await getPerson(trx, t.person_id);
        try {
          await setPersonEmail(trx, t.person_id, t.new_email!);
        } catch (e) {
          // Taken by a confirmation (or an invitation's new person) that committed after the check above: the same
          // answer as when it came first; the transaction rolls back, so this link stays unused.
          if (errorField(e, 'code') === '23505')
            throw new AccountError('email_taken', 'Another account already uses this email address');
          throw e;
        }
        await revokeEmailChanges(trx, t.person_id, now);
        // Sign-in links mailed to the former address stop too: it "no longer signs you in".
        await revokeLoginLinks(trx, t.person_id, now);
        await revokePersonSessions(trx, t.person_id, now);
        return before ? { email: before.email, now: t.new_email! } : null;
      });
      if (former && former.email !== former.now) {
        sendLater({
          kind: 'email_change_notice',
          to: former.email,
          subject: 'Your Vulnintel sign-in address was changed',
          text: `Your Vulnintel sign-in address is now ${former.now}; this address no longer signs you in, and every session was signed out.\n\nIf this was not you, contact your organization's owner.\n`,
        });
      }
    },
  };
}
