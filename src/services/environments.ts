// Environments (spec §2.6 `environment_id`: "an organization's environment"): create and list inside the
// caller's organization. Ids are random (migration 0600, docs/tenant-ids.md); never request or reply here.
import type { Db } from '../store/db.ts';
import { createEnvironment, listEnvironments, type EnvironmentRow } from '../store/windows.ts';
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { assertEnvironmentRoom } from './plan-caps.ts';

export interface Environment {
  id: number;
  name: string;
  description: string | null;
  created_at: string;
  host_count: number;
}

export type CreateEnvironmentResult = { ok: true; environment: Environment } | { ok: false; reason: 'name_taken'; name: string };

const view = (r: EnvironmentRow): Environment => ({
  id: r.id, name: r.name, description: r.description, created_at: new Date(r.created_at).toISOString(), host_count: r.host_count,
});

/** A random id drawn twice is a primary-key violation: drawn again (48 random bits make it very rare). */
function idCollision(e: unknown): boolean {
  const err = e as { code?: string; constraint?: string };
  return err?.code === '23505' && err.constraint === 'environments_pkey';
}

export function createEnvironmentService(db: Db, planCaps: Readonly<PlanCapsTable>) {
  return {
    /** Past the organization's environment cap: 403 cap_exceeded, nothing created (services/plan-caps.ts). */
    async create(orgId: number, input: { name: string; description?: string | null }): Promise<CreateEnvironmentResult> {
      const name = input.name.trim();
      const description = input.description?.trim() || null;
      for (let attempt = 1; ; attempt++) {
        try {
          const row = await db.transaction().execute(async (trx) => {
            await assertEnvironmentRoom(trx, planCaps, orgId);
            return createEnvironment(trx, orgId, name, description);
          });
          return row ? { ok: true, environment: view(row) } : { ok: false, reason: 'name_taken', name };
        } catch (e) {
          if (!idCollision(e) || attempt >= 3) throw e;
        }
      }
    },

    async list(orgId: number): Promise<Environment[]> {
      return (await listEnvironments(db, orgId)).map(view);
    },
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
