// The organization and its team: settings, members, invitations (spec §4.5, §5.6; docs/accounts.md "Team").
import { ACCOUNT_STATUSES, oneOf } from '../stored-values.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTx } from '../../store/db.ts';
import { lockOrg, renameOrg, upsertPerson, type OrgRow } from '../../store/accounts.ts';
import {
  consumeInvitation,
  countMembers,
  deleteMembership,
  findMemberOfPerson,
  getTeamMember,
  insertInvitation,
  insertMembership,
  listTeam,
  ownerOf,
  pendingInvitations,
  revokeInvitation,
  revokeInvitationsOf,
  type InvitationRow,
} from '../../store/account-team.ts';
import { findMemberByEmail } from '../../store/identity.ts';
import { INVITATION_TTL_MS, isEmail, normalizeEmail, removalRefusal } from '../../domain/accounts.ts';
import { TIER_PERMISSIONS } from '../../domain/tiers.ts';
import { effectiveCaps, underCap } from '../../domain/plan-caps.ts';
import type { Principal } from '../identity.ts';
import { AccountError, iso } from '../account-errors.ts';
import type { AccountsContext, NewSession } from './context.ts';

export function teamPart(ctx: AccountsContext) {
  const { db, clock, planCaps, chargeRecipient, link, sendLater, startSession, orgOf } = ctx;

  function orgView(o: OrgRow) {
    const tier = o.tier;
    return {
      id: o.id,
      name: o.name,
      tier,
      status: oneOf(ACCOUNT_STATUSES, o.status, 'organization status'),
      created_at: iso(o.created_at)!,
      permissions: { ...TIER_PERMISSIONS[tier] },
      plan_caps: { ...planCaps[tier] },
      cap_overrides: { ...o.cap_overrides },
      caps: effectiveCaps(planCaps, tier, o.cap_overrides),
      provider_org_id: o.provider_org_id,
    };
  }

  return {
    async organization(p: Principal) {
      return orgView(await orgOf(p));
    },

    async updateOrganization(p: Principal, input: { name?: string }) {
      if (input.name !== undefined) await renameOrg(db, p.orgId, input.name);
      return orgView(await orgOf(p));
    },

    async team(p: Principal) {
      const [members, invitations] = await Promise.all([
        listTeam(db, p.orgId),
        pendingInvitations(db, p.orgId, clock.now()),
      ]);
      return {
        members: members.map((m) => ({
          id: m.id,
          email: m.email,
          name: m.name,
          role: m.role,
          created_at: iso(m.created_at)!,
        })),
        invitations: invitations.map(invitationView),
      };
    },

    /**
     * Invites an address (spec §4.5). A pending invitation holds a seat: members plus pending invitations may not
     * pass the effective member cap. The organization row is locked, so parallel invitations see one count.
     */
    async invite(p: Principal, input: { email: string; role: 'admin' | 'viewer' }) {
      const email = normalizeEmail(input.email);
      if (!isEmail(email))
        throw new AccountError('invalid_email', 'email is not a valid email address', { field: 'email' });
      const now = clock.now();
      const token = randomToken();
      const inv = await withTx(db, async (trx) => {
        const o = await lockOrg(trx, p.orgId);
        if (!o) throw new AccountError('not_found', 'No such organization');
        if (await findMemberByEmail(trx, p.orgId, email))
          throw new AccountError('already_member', `${email} is already a member of this organization`);
        await revokeInvitationsOf(trx, p.orgId, email, now);
        const limit = effectiveCaps(planCaps, o.tier, o.cap_overrides).members;
        const used = (await countMembers(trx, p.orgId)) + (await pendingInvitations(trx, p.orgId, now)).length;
        if (!underCap(limit, used)) {
          throw new AccountError(
            'cap_exceeded',
            `The plan allows ${limit} members (pending invitations included); ${used} are used`,
            { resource: 'members', limit, used },
          );
        }
        // Last before the insert (a refused invitation costs the address nothing), in the transaction (a refusal
        // stores nothing: the pending invitation replaced above stays).
        await chargeRecipient(email);
        const row = await insertInvitation(trx, p.orgId, {
          email,
          role: input.role,
          tokenHash: sha256Hex(token),
          invitedBy: p.memberId,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
          now,
        });
        return { row, orgName: o.name };
      });
      const url = link('/api/v1/auth/accept-invite', token);
      sendLater({
        kind: 'invitation',
        to: email,
        link: url,
        subject: `You are invited to ${inv.orgName} on Vulnintel`,
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
        if (!inv)
          throw new AccountError(
            'invitation_invalid',
            'This invitation is invalid, expired, withdrawn or already used',
          );
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
  };
}

function invitationView(i: InvitationRow) {
  return { id: i.id, email: i.email, role: i.role, created_at: iso(i.created_at)!, expires_at: iso(i.expires_at)! };
}
