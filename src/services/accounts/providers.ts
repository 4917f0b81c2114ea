// The client organizations of a managed-service provider (docs/accounts.md "Providers").
import { ACCOUNT_STATUSES, oneOf } from '../stored-values.ts';
import { withTx } from '../../store/db.ts';
import { deactivateOrg, getClient, listClients, restoreOrg, setProvider } from '../../store/accounts.ts';
import { revokeOrgSessions } from '../../store/account-sessions.ts';
import type { Tier } from '../../domain/tiers.ts';
import type { Principal } from '../identity.ts';
import { AccountError, iso } from '../account-errors.ts';
import type { AccountsContext } from './context.ts';

export function providersPart(ctx: AccountsContext) {
  const { db, clock } = ctx;
  return {
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
        return clientView(await getClient(trx, p.orgId, clientId));
      });
    },

    async restoreClient(p: Principal, clientId: number) {
      const c = await getClient(db, p.orgId, clientId);
      if (!c) throw new AccountError('not_found', 'No such client organization of yours');
      await restoreOrg(db, clientId);
      return clientView(await getClient(db, p.orgId, clientId));
    },

    /** Operator: makes `clientOrgId` a client of `providerOrgId` (vulnintel org set-provider). */
    async setProvider(clientOrgId: number, providerOrgId: number | null) {
      await setProvider(db, clientOrgId, providerOrgId);
    },
  };
}

function clientView(c: {
  id: number;
  name: string;
  tier: Tier;
  status: string;
  created_at: Date;
  deactivated_at: Date | null;
}) {
  return {
    id: c.id,
    name: c.name,
    tier: c.tier,
    status: oneOf(ACCOUNT_STATUSES, c.status, 'organization status'),
    created_at: iso(c.created_at)!,
    deactivated_at: iso(c.deactivated_at),
  };
}
