// Environments (spec §2.6 `environment_id`: "an organization's environment"): create, list and delete inside the
// caller's organization. Ids are random (migration 0600, docs/tenant-ids.md); never request or reply here.
import { errorField } from '../lib/errors.ts';
import type { Db } from '../store/db.ts';
import { confusableWith } from '../domain/names.ts';
import {
  createEnvironment,
  environmentNames,
  deleteEnvironment,
  deleteStoredAsset,
  listEnvironments,
  lockEnvironment,
  type EnvironmentRow,
} from '../store/windows.ts';
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { assertEnvironmentRoom } from './plan-caps.ts';
import { invalidInput, Refusal } from './refusal.ts';

export interface Environment {
  id: number;
  name: string;
  description: string | null;
  created_at: string;
  host_count: number;
}

/** A deleted environment as it was, with what was stored in it and went with it. */
export interface RemovedEnvironmentView extends Environment {
  removed: { assets: number; windows_hosts: number };
}

/** A stored asset removed (DELETE /api/v1/assets/{asset_id}), and what went with it. */
export interface RemovedAsset {
  asset_id: string;
  environment_id: number | null;
  removed: { correlations: number; windows_hosts: number };
}

/** A name that looks like an existing environment's: 422 on body.name (value_error.confusable). */
function confusable(existing: string): Refusal {
  const message = `looks like the environment "${existing}" of your organization (the same letters from another script, full-width, or invisible marks); choose a name that reads differently`;
  return invalidInput(`name: ${message}`, [{ field: 'body.name', message, type: 'value_error.confusable' }]);
}

const view = (r: EnvironmentRow): Environment => ({
  id: r.id,
  name: r.name,
  description: r.description,
  created_at: new Date(r.created_at).toISOString(),
  host_count: r.host_count,
});

/** A random id drawn twice is a primary-key violation: drawn again (48 random bits make it very rare). */
function idCollision(e: unknown): boolean {
  return errorField(e, 'code') === '23505' && errorField(e, 'constraint') === 'environments_pkey';
}

export function createEnvironmentService(db: Db, planCaps: Readonly<PlanCapsTable>) {
  return {
    /**
     * Past the organization's environment cap: 403 cap_exceeded, nothing created (services/plan-caps.ts). A name taken:
     * environment_exists; one that looks like a taken one: 422 value_error.confusable.
     */
    async create(orgId: number, input: { name: string; description?: string | null }): Promise<Environment> {
      const name = input.name.trim();
      const description = input.description?.trim() || null;
      for (let attempt = 1; ; attempt++) {
        try {
          const row = await db.transaction().execute(async (trx) => {
            await assertEnvironmentRoom(trx, planCaps, orgId);
            // Under the organization's row lock (taken by the cap check): two look-alike creates cannot both pass.
            const existing = confusableWith(name, await environmentNames(trx, orgId));
            if (existing !== null) return { confusable: existing };
            return createEnvironment(trx, orgId, name, description);
          });
          if (row && 'confusable' in row) throw confusable(row.confusable);
          if (!row) throw new Refusal('environment_exists', 'An environment with this name already exists', { name });
          return view(row);
        } catch (e) {
          if (!idCollision(e) || attempt >= 3) throw e;
        }
      }
    },

    async list(orgId: number): Promise<Environment[]> {
      return (await listEnvironments(db, orgId)).map(view);
    },

    /**
     * Deletes one of the organization's environments and everything stored in it (its v1 correlated assets, its v2
     * Windows hosts and their installed software), which frees their room under the plan caps. Null when the
     * organization has no such environment. A store into it that is under way finishes first, or answers 404.
     */
    async remove(orgId: number, id: number): Promise<RemovedEnvironmentView | null> {
      const r = await db.transaction().execute((trx) => deleteEnvironment(trx, orgId, id));
      if (!r) return null;
      return {
        ...view({ ...r, host_count: r.removed_windows_hosts }),
        removed: { assets: r.removed_assets, windows_hosts: r.removed_windows_hosts },
      };
    },

    /**
     * Removes what is stored under one asset_id in one of the organization's environments, or among the hosts
     * stored without one (`environmentId` null), freeing its room under the assets cap unless the asset_id is also
     * stored elsewhere. 'environment' when the organization has no such environment, 'asset' when nothing is stored.
     */
    async removeAsset(
      orgId: number,
      environmentId: number | null,
      assetId: string,
    ): Promise<RemovedAsset | 'environment' | 'asset'> {
      return db.transaction().execute(async (trx) => {
        if (environmentId !== null && !(await lockEnvironment(trx, orgId, environmentId))) return 'environment';
        const removed = await deleteStoredAsset(trx, orgId, environmentId, assetId);
        if (removed.correlations + removed.windows_hosts === 0) return 'asset';
        return { asset_id: assetId, environment_id: environmentId, removed };
      });
    },
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
