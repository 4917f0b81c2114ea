// Training progress (migration 0820): one row per (organization, member, module) once started. SQL only.
import { sql } from './kysely.ts';
import type { Db } from './db.ts';
import type { ProgressRow } from '../domain/training.ts';

export interface Member {
  orgId: number;
  memberId: number;
}

export async function listProgress(db: Db, m: Member): Promise<ProgressRow[]> {
  return db
    .selectFrom('training_progress')
    .select(['module_id', 'started_at', 'completed_at', 'updated_at'])
    .where('org_id', '=', m.orgId)
    .where('member_id', '=', m.memberId)
    .orderBy('module_id')
    .execute();
}

export async function getProgress(db: Db, m: Member, moduleId: string): Promise<ProgressRow | undefined> {
  return db
    .selectFrom('training_progress')
    .select(['module_id', 'started_at', 'completed_at', 'updated_at'])
    .where('org_id', '=', m.orgId)
    .where('member_id', '=', m.memberId)
    .where('module_id', '=', moduleId)
    .executeTakeFirst();
}

/** Starts a module; starting again changes nothing (the first start time stays). Returns the row. */
export async function startModule(db: Db, m: Member, moduleId: string, now: Date): Promise<ProgressRow> {
  const r = await sql<ProgressRow>`
    INSERT INTO training_progress (org_id, member_id, module_id, started_at, updated_at)
    VALUES (${m.orgId}, ${m.memberId}, ${moduleId}, ${now}, ${now})
    ON CONFLICT (org_id, member_id, module_id) DO UPDATE SET module_id = EXCLUDED.module_id
    RETURNING module_id, started_at, completed_at, updated_at`.execute(db);
  return r.rows[0];
}

/**
 * Completes a started module; completing again keeps the first completion time. Undefined when the member never
 * started it (nothing written).
 */
export async function completeModule(db: Db, m: Member, moduleId: string, now: Date): Promise<ProgressRow | undefined> {
  return db
    .updateTable('training_progress')
    .set({
      completed_at: sql<Date>`COALESCE(completed_at, GREATEST(${now}::timestamptz, started_at))`,
      updated_at: sql<Date>`CASE WHEN completed_at IS NULL THEN GREATEST(${now}::timestamptz, started_at) ELSE updated_at END`,
    })
    .where('org_id', '=', m.orgId)
    .where('member_id', '=', m.memberId)
    .where('module_id', '=', moduleId)
    .returning(['module_id', 'started_at', 'completed_at', 'updated_at'])
    .executeTakeFirst();
}
