// Accounts (docs/accounts.md): sign-in by email link, sessions, the profile, the organization, the
// team and its invitations, API keys and the free trial (services/account-keys.ts), account deletion and purge, and the client
// organizations of a managed-service provider. Never sees request or reply: callers pass a Principal (who asks)
// and plain input, and get data or an AccountError the route maps to its spec §7 answer.
import type { Clock } from '../lib/clock.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { isRemovedMember, withTx, type Db, type Store } from '../store/db.ts';
import { postgresLimiter } from '../store/rate-limits.ts';
import {
  consumeAuthToken, consumeInvitation, countMembers, createSession, deactivateOrg, deleteMembership, deleteOrganizationRow,
  deleteOrgRows, deleteOrphanPersons, deletedBefore, findMemberOfPerson, findPersonByEmail, getClient, getOrg, getPerson,
  getTeamMember, insertAuthToken, personIdOfMember, setProvider, insertInvitation, insertMembership, listClients, listTeam, lockOrg, membershipsOf,
  ownerOf, pendingInvitations, personsOfOrg, renameOrg, restoreOrg, revokeInvitation, revokeInvitationsOf, revokeOrgKeys, revokeOrgSessions,
  revokeEmailChanges, revokeLoginLinks, revokePersonSessions, revokeSessionByHash, savepoint, setLastOrg, setPersonEmail, tenantTables, updatePerson, upsertPerson,
  type InvitationRow, type OrgRow, type PersonRow, memberProfile,
} from '../store/accounts.ts';
import {
  DELETE_CONFIRMATION, EMAIL_CHANGE_TTL_MS, INVITATION_TTL_MS, LOGIN_LIMITS, LOGIN_LINK_TTL_MS, PURGE_AFTER_MS, RECIPIENT_MAIL_LIMIT,
  SESSION_ABSOLUTE_MS, isEmail, normalizeEmail, removalRefusal, safeNextPath,
} from '../domain/accounts.ts';
import { TIER_PERMISSIONS, type Tier } from '../domain/tiers.ts';
import { effectiveCaps, underCap, type PlanCapsTable } from '../domain/plan-caps.ts';
import { createMailer, type Mailer } from './mailer.ts';
import { systemClock } from '../lib/clock.ts';
import type { Principal } from './identity.ts';
import { AccountError, iso } from './account-errors.ts';
import { createAccountKeys } from './account-keys.ts';

export { AccountError, type AccountErrorCode } from './account-errors.ts';

/** Keys a person's stored preferences may hold (docs/accounts.md). */
export const MAX_PREFERENCE_KEYS = 32;

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


export function createAccountsService(deps: AccountsDeps) {
  const db: Db = deps.store.db;
  const { clock, mailer } = deps;
  const keys = createAccountKeys({ db, clock });
  const perEmail = postgresLimiter(deps.store, 'login_email', LOGIN_LIMITS.perEmail);
  const perAddress = postgresLimiter(deps.store, 'login_addr', LOGIN_LIMITS.perAddress);
  const perRecipient = postgresLimiter(deps.store, 'mail_to', RECIPIENT_MAIL_LIMIT);
  /** Counts one invitation or address-change email to `email` (RECIPIENT_MAIL_LIMIT); refused past the limit. */
  async function chargeRecipient(email: string): Promise<void> {
    try {
      await perRecipient.consume(sha256Hex(email), 1);
    } catch (r) {
      if (r instanceof Error) throw r;
      const ms = (r as { msBeforeNext: number }).msBeforeNext;
      throw new AccountError('rate_limited', `Too many emails to ${email} in the last hour (at most ${RECIPIENT_MAIL_LIMIT.points}); try again later`, { retry_after: Math.max(1, Math.ceil(ms / 1000)) });
    }
  }
  const link = (path: string, token: string) => `${deps.publicUrl}${path}?token=${encodeURIComponent(token)}`;

  function sendLater(mail: Parameters<Mailer['send']>[0]) {
    mailer.send(mail).catch((e: Error) => deps.warn(`email (${mail.kind}) not sent`, e));
  }

  async function issueLoginToken(person: PersonRow, nextPath: string | null = null): Promise<string> {
    const token = randomToken();
    const now = clock.now();
    await insertAuthToken(db, { tokenHash: sha256Hex(token), purpose: 'login', personId: person.id, nextPath, expiresAt: new Date(now.getTime() + LOGIN_LINK_TTL_MS) });
    return link('/api/v1/auth/callback', token);
  }

  /** A new session of the member; `replacing`: the session token it replaces, ended in the same transaction. */
  async function startSession(personId: number, orgId: number, memberId: number, replacing?: string): Promise<NewSession> {
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

  function orgView(o: OrgRow) {
    const tier = o.tier;
    return {
      id: o.id, name: o.name, tier, status: o.status as 'active' | 'deactivated', created_at: iso(o.created_at)!,
      permissions: { ...TIER_PERMISSIONS[tier] },
      plan_caps: { ...deps.planCaps[tier] },
      cap_overrides: { ...o.cap_overrides },
      caps: effectiveCaps(deps.planCaps, tier, o.cap_overrides),
      provider_org_id: o.provider_org_id,
    };
  }


  return {
    /**
     * Sends a sign-in link to the address if a person has it, and nothing otherwise; the caller answers the same
     * in both cases. Counts against the per-email and per-address limits either way. `next`: the page the link
     * lands on, kept with the token when it is a local path (safeNextPath), else the account page.
     */
    async requestLogin(rawEmail: string, clientAddress: string, next?: string): Promise<void> {
      const email = normalizeEmail(rawEmail);
      for (const [limiter, key, what] of [[perAddress, clientAddress, 'address'], [perEmail, sha256Hex(email), 'email address']] as const) {
        try {
          await limiter.consume(key, 1);
        } catch (r) {
          if (r instanceof Error) throw r;
          const ms = (r as { msBeforeNext: number }).msBeforeNext;
          throw new AccountError('rate_limited', `Too many sign-in requests for this ${what}; try again later`, { retry_after: Math.max(1, Math.ceil(ms / 1000)) });
        }
      }
      if (!isEmail(email)) return;
      const person = await findPersonByEmail(db, email);
      if (!person) return;
      const url = await issueLoginToken(person, safeNextPath(next));
      sendLater({
        kind: 'login', to: person.email, link: url, subject: 'Your Vulnintel sign-in link',
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
      if (!t) throw new AccountError('login_link_invalid', 'This sign-in link is invalid, expired or already used; request a new one');
      const person = await getPerson(db, t.person_id);
      const ms = person ? (await membershipsOf(db, person.id)).filter((m) => m.status === 'active') : [];
      if (!person || ms.length === 0) throw new AccountError('no_active_organization', 'This person belongs to no active organization');
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
        org_id: m.org_id, org_name: m.org_name, role: m.role, tier: m.tier, status: m.status as 'active' | 'deactivated',
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

    async me(p: Principal) {
      // One statement (it runs on every account page and GET /account/me; docs/benchmarks.md).
      const m = await memberProfile(db, p.orgId, p.memberId);
      if (!m) throw new AccountError('not_a_member', 'The member of this credential no longer exists');
      return {
        id: p.memberId, email: m.email, name: m.name, tier: m.tier, org_id: m.org_id, org_name: m.org_name,
        created_at: iso(m.created_at)!, permissions: { ...TIER_PERMISSIONS[m.tier] }, role: p.role,
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
        if (!isEmail(email)) throw new AccountError('invalid_email', 'email is not a valid email address', { field: 'email' });
        if (p.via !== 'session') throw new AccountError('session_required', 'The sign-in email address can be changed from a browser session only; API keys are rejected for it');
        emailGiven = true;
        if (email !== person.email) pendingEmail = email;
      }
      // Before anything is stored: a refused request changes nothing.
      if (pendingEmail) await chargeRecipient(pendingEmail);
      await withTx(db, async (trx) => {
        const keys = await updatePerson(trx, person.id, { name: input.name, preferences: input.preferences });
        if (keys !== null && keys > MAX_PREFERENCE_KEYS) {
          throw new AccountError('too_many_preferences', `preferences would hold ${keys} keys; at most ${MAX_PREFERENCE_KEYS} are stored (a null value removes a key)`);
        }
        if (emailGiven) await revokeEmailChanges(trx, person.id, clock.now());
        if (pendingEmail) {
          const token = randomToken();
          await insertAuthToken(trx, { tokenHash: sha256Hex(token), purpose: 'email_change', personId: person.id, newEmail: pendingEmail, expiresAt: new Date(clock.now().getTime() + EMAIL_CHANGE_TTL_MS) });
          const url = link('/api/v1/auth/confirm-email', token);
          sendLater({
            kind: 'email_change', to: pendingEmail, link: url, subject: 'Confirm your new Vulnintel email address',
            text: `Confirm that this address becomes your Vulnintel sign-in address (valid for 60 minutes, once):\n\n${url}\n\nIf you did not ask for it, ignore this message.\n`,
          });
          sendLater({
            kind: 'email_change_notice', to: person.email, subject: 'Your Vulnintel sign-in address is being changed',
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
        if (!t) throw new AccountError('login_link_invalid', 'This confirmation link is invalid, expired or already used');
        const taken = await findPersonByEmail(trx, t.new_email!);
        if (taken && taken.id !== t.person_id) throw new AccountError('email_taken', 'Another account already uses this email address');
        const before = await getPerson(trx, t.person_id);
        try {
          await setPersonEmail(trx, t.person_id, t.new_email!);
        } catch (e) {
          // Taken by a confirmation (or an invitation's new person) that committed after the check above: the same
          // answer as when it came first; the transaction rolls back, so this link stays unused.
          if ((e as { code?: string }).code === '23505') throw new AccountError('email_taken', 'Another account already uses this email address');
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
          kind: 'email_change_notice', to: former.email, subject: 'Your Vulnintel sign-in address was changed',
          text: `Your Vulnintel sign-in address is now ${former.now}; this address no longer signs you in, and every session was signed out.\n\nIf this was not you, contact your organization's owner.\n`,
        });
      }
    },

    async organization(p: Principal) {
      return orgView(await orgOf(p));
    },

    async updateOrganization(p: Principal, input: { name?: string }) {
      if (input.name !== undefined) await renameOrg(db, p.orgId, input.name);
      return orgView(await orgOf(p));
    },

    async team(p: Principal) {
      const [members, invitations] = await Promise.all([listTeam(db, p.orgId), pendingInvitations(db, p.orgId, clock.now())]);
      return {
        members: members.map((m) => ({ id: m.id, email: m.email, name: m.name, role: m.role, created_at: iso(m.created_at)! })),
        invitations: invitations.map(invitationView),
      };
    },

    /**
     * Invites an address (spec §4.5). A pending invitation holds a seat: members plus pending invitations may not
     * pass the effective member cap. The organization row is locked, so parallel invitations see one count.
     */
    async invite(p: Principal, input: { email: string; role: 'admin' | 'viewer' }) {
      const email = normalizeEmail(input.email);
      if (!isEmail(email)) throw new AccountError('invalid_email', 'email is not a valid email address', { field: 'email' });
      const now = clock.now();
      const token = randomToken();
      const inv = await withTx(db, async (trx) => {
        const o = await lockOrg(trx, p.orgId);
        if (!o) throw new AccountError('not_found', 'No such organization');
        const existing = await trx.selectFrom('members').select('id').where('org_id', '=', p.orgId).where('email', '=', email).executeTakeFirst();
        if (existing) throw new AccountError('already_member', `${email} is already a member of this organization`);
        await revokeInvitationsOf(trx, p.orgId, email, now);
        const limit = effectiveCaps(deps.planCaps, o.tier, o.cap_overrides).members;
        const used = (await countMembers(trx, p.orgId)) + (await pendingInvitations(trx, p.orgId, now)).length;
        if (!underCap(limit, used)) {
          throw new AccountError('cap_exceeded', `The plan allows ${limit} members (pending invitations included); ${used} are used`, { resource: 'members', limit, used });
        }
        // Last before the insert (a refused invitation costs the address nothing), in the transaction (a refusal
        // stores nothing: the pending invitation replaced above stays).
        await chargeRecipient(email);
        const row = await insertInvitation(trx, p.orgId, { email, role: input.role, tokenHash: sha256Hex(token), invitedBy: p.memberId, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS), now });
        return { row, orgName: o.name };
      });
      const url = link('/api/v1/auth/accept-invite', token);
      sendLater({
        kind: 'invitation', to: email, link: url, subject: `You are invited to ${inv.orgName} on Vulnintel`,
        text: `${p.email} invites you to join ${inv.orgName} on Vulnintel as ${input.role}.\n\nAccept (valid for 7 days, once):\n\n${url}\n`,
      });
      return invitationView(inv.row);
    },

    /** Withdraws a pending invitation: its link stops working and its seat is free. */
    async withdrawInvitation(p: Principal, invitationId: number) {
      const r = await revokeInvitation(db, p.orgId, invitationId, clock.now());
      if (!r) throw new AccountError('not_found', 'No such pending invitation in your organization');
      return invitationView(r);
    },

    /** Follows an invitation link: the membership is created (the person too, if new) and a session starts in it. */
    async acceptInvitation(token: string): Promise<NewSession> {
      const r = await withTx(db, async (trx) => {
        const inv = await consumeInvitation(trx, sha256Hex(token), clock.now());
        if (!inv) throw new AccountError('invitation_invalid', 'This invitation is invalid, expired, withdrawn or already used');
        const person = await upsertPerson(trx, inv.email, '');
        const existing = await findMemberOfPerson(trx, inv.org_id, person.id);
        const memberId = existing ? existing.id : await insertMembership(trx, inv.org_id, person, inv.role);
        return { person, orgId: inv.org_id, memberId };
      });
      return startSession(r.person.id, r.orgId, r.memberId);
    },

    /** Removes a member (spec §5.6): never the owner; its sessions end and its keys are revoked. */
    async removeMember(p: Principal, memberId: number) {
      await withTx(db, async (trx) => {
        const target = await getTeamMember(trx, p.orgId, memberId);
        if (!target) throw new AccountError('not_found', 'No such member in your organization');
        const refusal = removalRefusal(p.role, target.role);
        if (refusal === 'owner_cannot_be_removed') throw new AccountError(refusal, 'The owner cannot be removed');
        if (refusal) throw new AccountError(refusal, 'Removing a member needs the admin role');
        const owner = await ownerOf(trx, p.orgId);
        await deleteMembership(trx, p.orgId, memberId, owner.id, clock.now());
      });
    },

    ...keys,

    /**
     * Deletes the caller's organization (spec §3.2): deactivated at once (sessions end, keys revoked, and every
     * check of `isActive` fails from now on), a confirmation email to the owner, data purged by the hourly job
     * once 20 hours have passed.
     */
    async deleteAccount(p: Principal, confirmation: string | undefined) {
      if (confirmation !== DELETE_CONFIRMATION) {
        throw new AccountError('confirmation_required', `Send {"confirmation": "${DELETE_CONFIRMATION}"} to delete the organization and all its data`, { confirmation: DELETE_CONFIRMATION });
      }
      const now = clock.now();
      const r = await withTx(db, async (trx) => {
        const o = await lockOrg(trx, p.orgId);
        if (!o) throw new AccountError('not_found', 'No such organization');
        await deactivateOrg(trx, p.orgId, now, true);
        await revokeOrgSessions(trx, p.orgId, now);
        await revokeOrgKeys(trx, p.orgId, now);
        return { name: o.name, owner: await ownerOf(trx, p.orgId) };
      });
      const purgeBy = new Date(now.getTime() + PURGE_AFTER_MS + 3_600_000);
      if (r.owner) {
        sendLater({
          kind: 'account_deleted', to: r.owner.email, subject: `${r.name} was deleted from Vulnintel`,
          text: `The organization ${r.name} was deleted on ${now.toISOString()}. Its sessions and API keys no longer work, and all its data will be purged by ${purgeBy.toISOString()}. Encrypted backups age out within 31 days.\n`,
        });
      }
      return { org_id: p.orgId, status: 'deactivated' as const, deleted_at: now.toISOString(), purge_by: purgeBy.toISOString() };
    },

    /** The one check of "organization deactivated" (deleted, or deactivated by its provider): keys, sessions, webhooks. */
    async isActive(orgId: number): Promise<boolean> {
      const o = await getOrg(db, orgId);
      return o?.status === 'active';
    },

    /**
     * The hourly purge: every organization deleted by its owner more than 20 hours ago is removed from every
     * table that has an org_id (found in the schema, so a table added later is covered), then the organization
     * row and the persons left without any membership.
     */
    async purgeDeleted(limit = 50): Promise<number[]> {
      const ids = await deletedBefore(db, new Date(clock.now().getTime() - PURGE_AFTER_MS), limit);
      for (const orgId of ids) {
        await withTx(db, async (trx) => {
          const persons = await personsOfOrg(trx, orgId);
          // Children before parents: a table whose rows another tenant table still references is retried after.
          let pending = (await tenantTables(trx)).filter((t) => t !== 'members');
          for (let pass = 0; pending.length > 0 && pass < 10; pass++) {
            const retry: string[] = [];
            for (const table of pending) {
              await savepoint(trx, 'purge_table', 'set');
              try {
                await deleteOrgRows(trx, table, orgId);
                await savepoint(trx, 'purge_table', 'release');
              } catch (e) {
                if ((e as { code?: string }).code !== '23503') throw e;
                await savepoint(trx, 'purge_table', 'rollback');
                retry.push(table);
              }
            }
            pending = retry;
          }
          await deleteOrgRows(trx, 'members', orgId);
          await deleteOrganizationRow(trx, orgId);
          await deleteOrphanPersons(trx, persons);
        });
      }
      return ids;
    },

    async clients(p: Principal) {
      return (await listClients(db, p.orgId)).map(clientView);
    },

    /** A provider deactivates a client organization (not purged): its keys and sessions stop until restored. */
    async deactivateClient(p: Principal, clientId: number) {
      const now = clock.now();
      return withTx(db, async (trx) => {
        const c = await getClient(trx, p.orgId, clientId);
        if (!c) throw new AccountError('not_found', 'No such client organization of yours');
        if (c.status === 'active') {
          await deactivateOrg(trx, clientId, now, false);
          await revokeOrgSessions(trx, clientId, now);
        }
        return clientView((await getClient(trx, p.orgId, clientId)));
      });
    },

    async restoreClient(p: Principal, clientId: number) {
      const c = await getClient(db, p.orgId, clientId);
      if (!c) throw new AccountError('not_found', 'No such client organization of yours');
      await restoreOrg(db, clientId);
      return clientView((await getClient(db, p.orgId, clientId)));
    },

    /** Operator: makes `clientOrgId` a client of `providerOrgId` (vulnintel org set-provider). */
    async setProvider(clientOrgId: number, providerOrgId: number | null) {
      await setProvider(db, clientOrgId, providerOrgId);
    },
  };

}

function invitationView(i: InvitationRow) {
  return { id: i.id, email: i.email, role: i.role, created_at: iso(i.created_at)!, expires_at: iso(i.expires_at)! };
}

function clientView(c: { id: number; name: string; tier: Tier; status: string; created_at: Date; deactivated_at: Date | null }) {
  return { id: c.id, name: c.name, tier: c.tier, status: c.status as 'active' | 'deactivated', created_at: iso(c.created_at)!, deactivated_at: iso(c.deactivated_at) };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

/** The accounts service for operator commands and jobs: system time, and no email sent. */
export function operatorAccounts(store: Store, config: { publicUrl: string; mailFrom: string; planCaps: Readonly<PlanCapsTable> }): AccountsService {
  const mailer = createMailer({ smtpUrl: null, from: config.mailFrom, info: () => {}, warn: () => {} });
  return createAccountsService({ store, clock: systemClock, mailer, publicUrl: config.publicUrl, planCaps: config.planCaps, warn: () => {} });
}
