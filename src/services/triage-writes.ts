// What every triage write checks (docs/triage.md): who writes (a member by session or by API key, and how the
// history names them), the comment, and the references a decision makes (its assignee, its narrowed assets).
import type { Db } from '../store/db.ts';
import { membersOf, storedAssetIds } from '../store/triage-references.ts';
import { type Actor } from '../store/triage-history.ts';
import { COMMENT_MAX, type DecisionFields, type FieldError } from '../domain/triage.ts';

/** Who writes: a member by session, or a member's API key. */
export interface Writer {
  orgId: number;
  memberId: number;
  email: string;
  keyId: number | null;
  keyStart: string | null;
}

export function actorOf(w: Writer): Actor {
  return { member: w.memberId, key: w.keyId, label: w.keyStart ? `${w.email} (API key ${w.keyStart}…)` : w.email };
}

export function commentOf(
  c: string | null | undefined,
  at: string,
): { ok: true; comment: string | null } | { ok: false; errors: FieldError[] } {
  const t = c?.trim() ? c.trim() : null;
  if (t !== null && t.length > COMMENT_MAX)
    return {
      ok: false,
      errors: [{ field: `${at}.comment`, message: `at most ${COMMENT_MAX} characters`, type: 'value_error.too_long' }],
    };
  return { ok: true, comment: t };
}

/** The assignee and the narrowed assets must be the organization's and the environment's: field errors otherwise. */
export async function checkRefs(
  db: Db,
  orgId: number,
  environmentId: number,
  f: DecisionFields,
  at: string,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  if (
    f.assignee_member_id !== null &&
    !(await membersOf(db, orgId, [f.assignee_member_id])).has(f.assignee_member_id)
  ) {
    errors.push({
      field: `${at}.assignee_member_id`,
      message: 'not a member of your organization',
      type: 'value_error.unknown_member',
    });
  }
  if (f.asset_ids.length) {
    const known = await storedAssetIds(db, orgId, environmentId, f.asset_ids);
    const missing = f.asset_ids.filter((a) => !known.has(a));
    if (missing.length)
      errors.push({
        field: `${at}.asset_ids`,
        message: `not stored in this environment: ${missing.slice(0, 10).join(', ')}`,
        type: 'value_error.unknown_asset',
      });
  }
  return errors;
}
