// Deleting an organization and purging it (spec §3.2; docs/accounts.md "Deletion"), and the one check of an
// organization still active.
import { withTx } from '../../store/db.ts';
import { getOrg, lockOrg, deactivateOrg } from '../../store/accounts.ts';
import { revokeOrgSessions } from '../../store/account-sessions.ts';
import { ownerOf, revokeOrgKeys } from '../../store/account-team.ts';
import {
  deleteOrganizationRow,
  deleteOrgRows,
  deleteOrphanPersons,
  deletedBefore,
  personsOfOrg,
  savepoint,
  tenantTables,
} from '../../store/account-purge.ts';
import { DELETE_CONFIRMATION, PURGE_AFTER_MS } from '../../domain/accounts.ts';
import type { Principal } from '../identity.ts';
import { AccountError } from '../account-errors.ts';
import type { AccountsContext } from './context.ts';
import { errorField } from '../../lib/errors.ts';

export function lifecyclePart(ctx: AccountsContext) {
  const { db, clock, sendLater } = ctx;
  return {
    /**
     * Deletes the caller's organization (spec §3.2): deactivated at once (sessions end, keys revoked, and every
     * check of `isActive` fails from now on), a confirmation email to the owner, data purged by the hourly job
     * once 20 hours have passed.
     */
    async deleteAccount(p: Principal, confirmation: string | undefined) {
      if (confirmation !== DELETE_CONFIRMATION) {
        throw new AccountError(
          'confirmation_required',
          `Send {"confirmation": "${DELETE_CONFIRMATION}"} to delete the organization and all its data`,
          { confirmation: DELETE_CONFIRMATION },
        );
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
          kind: 'account_deleted',
          to: r.owner.email,
          subject: `${r.name} was deleted from Vulnintel`,
          text: `The organization ${r.name} was deleted on ${now.toISOString()}. Its sessions and API keys no longer work, and all its data will be purged by ${purgeBy.toISOString()}. Encrypted backups age out within 31 days.\n`,
        });
      }
      return {
        org_id: p.orgId,
        status: 'deactivated' as const,
        deleted_at: now.toISOString(),
        purge_by: purgeBy.toISOString(),
      };
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
                if (errorField(e, 'code') !== '23503') throw e;
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
  };
}
