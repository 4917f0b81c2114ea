// Enforcing the environment, asset and webhook caps (spec §4.5 /account/usage, §8; docs/account-preferences.md "Caps"): the
// check and the write happen in one transaction that holds the organization's row lock, so parallel calls at the
// cap cannot both pass, and a refused call stores nothing. The member cap is enforced by the invitations
// (services/accounts.ts) the same way. Counts are those /account/usage reports.
import type { Tx } from '../store/db.ts';
import { lockOrg } from '../store/accounts.ts';
import { assetCounts, countEnvironments } from '../store/account-preferences.ts';
import { countWebhooks } from '../store/webhooks.ts';
import { effectiveCaps, underCap, type CapResource, type PlanCapsTable } from '../domain/plan-caps.ts';
import { Refusal } from './refusal.ts';

function refused(
  resource: CapResource,
  limit: number,
  used: number,
  message: string,
  extra: Record<string, number> = {},
): Refusal {
  return new Refusal('cap_exceeded', message, { resource, limit, used, ...extra });
}

/**
 * Locks the organization's row and reads its cap of `resource`: null when the organization is gone or the cap is
 * unlimited (nothing to check).
 */
async function lockedCap(
  trx: Tx,
  planCaps: Readonly<PlanCapsTable>,
  orgId: number,
  resource: CapResource,
): Promise<number | null> {
  const o = await lockOrg(trx, orgId);
  if (!o) return null;
  const limit = effectiveCaps(planCaps, o.tier, o.cap_overrides)[resource];
  return limit < 0 ? null : limit;
}

/** Locks the organization's row; one more `resource` (counted by `count`) past the cap: 403 cap_exceeded. */
async function assertRoomForOne(
  trx: Tx,
  planCaps: Readonly<PlanCapsTable>,
  orgId: number,
  resource: 'environments' | 'webhooks',
  count: (trx: Tx, orgId: number) => Promise<number>,
  remedy: string,
): Promise<void> {
  const limit = await lockedCap(trx, planCaps, orgId, resource);
  if (limit === null) return;
  const used = await count(trx, orgId);
  if (!underCap(limit, used)) {
    const noun = resource.slice(0, -1);
    throw refused(
      resource,
      limit,
      used,
      `The plan allows ${limit} ${noun}${limit === 1 ? '' : 's'}; ${used} exist. ${remedy} or raise the cap`,
    );
  }
}

/** Locks the organization's row; throws 403 cap_exceeded (environments) when it has no room for one more. */
export function assertEnvironmentRoom(trx: Tx, planCaps: Readonly<PlanCapsTable>, orgId: number): Promise<void> {
  return assertRoomForOne(
    trx,
    planCaps,
    orgId,
    'environments',
    countEnvironments,
    'Delete one (DELETE /api/v1/environments/{environment_id})',
  );
}

/** Locks the organization's row; throws 403 cap_exceeded (webhooks) when it has no room for one more. */
export function assertWebhookRoom(trx: Tx, planCaps: Readonly<PlanCapsTable>, orgId: number): Promise<void> {
  return assertRoomForOne(trx, planCaps, orgId, 'webhooks', countWebhooks, 'Delete one (DELETE /api/v1/webhooks/{id})');
}

/**
 * Locks the organization's row; throws 403 cap_exceeded (assets) when storing `assetIds` would take the organization
 * past its asset cap. An asset_id already stored (in any environment) is not new: replacing it costs nothing.
 */
export async function assertAssetRoom(
  trx: Tx,
  planCaps: Readonly<PlanCapsTable>,
  orgId: number,
  assetIds: readonly string[],
): Promise<void> {
  const limit = await lockedCap(trx, planCaps, orgId, 'assets');
  if (limit === null) return;
  const { used, added } = await assetCounts(trx, orgId, assetIds);
  if (added > 0 && used + added > limit) {
    throw refused(
      'assets',
      limit,
      used,
      `The plan allows ${limit} stored assets; ${used} are stored and this call would add ${added}. Nothing was stored (DELETE /api/v1/assets/{asset_id} removes one stored asset, and deleting an environment the assets stored in it)`,
      { requested: added },
    );
  }
}
