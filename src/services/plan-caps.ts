// Enforcing the environment, asset and webhook caps (spec §4.5 /account/usage, §8; docs/account-preferences.md "Caps"): the
// check and the write happen in one transaction that holds the organization's row lock, so parallel calls at the
// cap cannot both pass, and a refused call stores nothing. The member cap is enforced by the invitations
// (services/accounts.ts) the same way. Counts are those /account/usage reports.
import { ApiError } from '../http/errors.ts';
import type { Tx } from '../store/db.ts';
import { lockOrg } from '../store/accounts.ts';
import { assetCounts, countEnvironments } from '../store/account-preferences.ts';
import { countWebhooks } from '../store/webhooks.ts';
import { effectiveCaps, underCap, type CapResource, type PlanCapsTable } from '../domain/plan-caps.ts';

function refused(resource: CapResource, limit: number, used: number, message: string, extra: Record<string, number> = {}): ApiError {
  return new ApiError('CAP_EXCEEDED', { message, detail: { resource, limit, used, ...extra } });
}

/** Locks the organization's row; throws 403 cap_exceeded (environments) when it has no room for one more. */
export async function assertEnvironmentRoom(trx: Tx, planCaps: Readonly<PlanCapsTable>, orgId: number): Promise<void> {
  const o = await lockOrg(trx, orgId);
  if (!o) return;
  const limit = effectiveCaps(planCaps, o.tier, o.cap_overrides).environments;
  if (limit < 0) return;
  const used = await countEnvironments(trx, orgId);
  if (!underCap(limit, used)) {
    throw refused('environments', limit, used, `The plan allows ${limit} environment${limit === 1 ? '' : 's'}; ${used} exist. Delete one (DELETE /api/v1/environments/{environment_id}) or raise the cap`);
  }
}

/** Locks the organization's row; throws 403 cap_exceeded (webhooks) when it has no room for one more. */
export async function assertWebhookRoom(trx: Tx, planCaps: Readonly<PlanCapsTable>, orgId: number): Promise<void> {
  const o = await lockOrg(trx, orgId);
  if (!o) return;
  const limit = effectiveCaps(planCaps, o.tier, o.cap_overrides).webhooks;
  if (limit < 0) return;
  const used = await countWebhooks(trx, orgId);
  if (!underCap(limit, used)) {
    throw refused('webhooks', limit, used, `The plan allows ${limit} webhook${limit === 1 ? '' : 's'}; ${used} exist. Delete one (DELETE /api/v1/webhooks/{id}) or raise the cap`);
  }
}

/**
 * Locks the organization's row; throws 403 cap_exceeded (assets) when storing `assetIds` would take the organization
 * past its asset cap. An asset_id already stored (in any environment) is not new: replacing it costs nothing.
 */
export async function assertAssetRoom(trx: Tx, planCaps: Readonly<PlanCapsTable>, orgId: number, assetIds: readonly string[]): Promise<void> {
  const o = await lockOrg(trx, orgId);
  if (!o) return;
  const limit = effectiveCaps(planCaps, o.tier, o.cap_overrides).assets;
  if (limit < 0) return;
  const { used, added } = await assetCounts(trx, orgId, assetIds);
  if (added > 0 && used + added > limit) {
    throw refused('assets', limit, used, `The plan allows ${limit} stored assets; ${used} are stored and this call would add ${added}. Nothing was stored (DELETE /api/v1/assets/{asset_id} removes one stored asset, and deleting an environment the assets stored in it)`, { requested: added });
  }
}
