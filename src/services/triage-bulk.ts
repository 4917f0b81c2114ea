// Bulk triage (docs/triage.md "Bulk"): one decision applied to every CVE of an environment a filter selects, all or
// none, in one statement (store/triage-bulk.ts bulkWriteDecisions).
import type { Db } from '../store/db.ts';
import { lockEnvironment, environmentExists } from '../store/windows.ts';
import { bulkTargets, bulkWriteDecisions, type BulkFilter } from '../store/triage-bulk.ts';
import { knownCves } from '../store/triage-references.ts';
import { normalizeDecision, type DecisionInput } from '../domain/triage.ts';
import { environmentNotFound, invalidInput } from './refusal.ts';
import { actorOf, checkRefs, commentOf, type Writer } from './triage-writes.ts';

/** CVEs one bulk call may decide. */
export const BULK_MAX = 10_000;

/**
 * Applies one decision to every CVE of the environment a filter selects (bulkTargets; `cve_ids` alone names CVEs
 * of the corpus directly). At most BULK_MAX CVEs, all or none. CVEs whose decision already has these fields are
 * left as they are (`unchanged`). `dryRun`: the selection only, nothing written.
 */
export async function bulkDecide(
  db: Db,
  w: Writer,
  environmentId: number,
  input: { filter: BulkFilter; decision: DecisionInput; comment?: string | null; dry_run?: boolean },
): Promise<{
  matched: number;
  created: number;
  updated: number;
  unchanged: number;
  cve_ids: string[];
  dry_run: boolean;
}> {
  if (!(await environmentExists(db, w.orgId, environmentId))) throw environmentNotFound(environmentId);
  const f = input.filter;
  const criteria = Object.entries(f).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  const n = normalizeDecision(input.decision, 'body.decision');
  const c = commentOf(input.comment, 'body');
  const errors = [...(n.ok ? [] : n.errors), ...(c.ok ? [] : c.errors)];
  if (!criteria.length)
    errors.push({
      field: 'body.filter',
      message: 'a bulk decision needs at least one filter criterion',
      type: 'value_error.missing',
    });
  if (errors.length || !n.ok || !c.ok) throw invalidInput(null, errors);
  const refErrors = await checkRefs(db, w.orgId, environmentId, n.fields, 'body.decision');
  if (refErrors.length) throw invalidInput(null, refErrors);
  const onlyIds = criteria.length === 1 && criteria[0][0] === 'cve_ids';
  const ids = onlyIds
    ? [...(await knownCves(db, [...new Set(f.cve_ids!.map((x) => x.toUpperCase()))]))].sort().slice(0, BULK_MAX + 1)
    : await bulkTargets(
        db,
        w.orgId,
        environmentId,
        { ...f, cve_ids: f.cve_ids?.map((x) => x.toUpperCase()) },
        BULK_MAX + 1,
      );
  if (ids.length > BULK_MAX)
    throw invalidInput(null, [
      {
        field: 'body.filter',
        message: `the filter selects more than ${BULK_MAX} CVEs; narrow it`,
        type: 'value_error.too_many',
      },
    ]);
  if (input.dry_run) return { matched: ids.length, created: 0, updated: 0, unchanged: 0, cve_ids: ids, dry_run: true };
  const r = await db.transaction().execute(async (trx) => {
    if (!(await lockEnvironment(trx, w.orgId, environmentId))) return null;
    return bulkWriteDecisions(trx, w.orgId, environmentId, ids, n.fields, c.comment, actorOf(w));
  });
  if (!r) throw environmentNotFound(environmentId);
  return { matched: ids.length, ...r, cve_ids: ids, dry_run: false };
}
