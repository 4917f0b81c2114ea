// The vendor statements of triage (docs/triage.md "Vendor statements"): what CSAF advisories state about a CVE (the
// vendor's VEX), each with the environment's assets it names, shown beside the team's decision and adoptable as it.
import type { Db } from '../store/db.ts';
import { environmentExists } from '../store/windows.ts';
import { environmentProducts } from '../store/triage-references.ts';
import { vendorStatementsOf } from '../store/vendor-statements.ts';
import { COMMENT_MAX, type DecisionInput, type Justification } from '../domain/triage.ts';
import {
  adoptedDecision,
  numberedStatements,
  statementCovers,
  type VendorStatementView,
} from '../domain/vendor-statements.ts';
import { environmentNotFound, Refusal } from './refusal.ts';

/** The vendor statements about these CVEs, each with the environment's assets it names. */
export async function vendorStatements(
  db: Db,
  orgId: number,
  environmentId: number,
  cveIds: readonly string[],
): Promise<Map<string, VendorStatementView[]>> {
  const stated = await vendorStatementsOf(db, cveIds);
  const out = new Map<string, VendorStatementView[]>();
  if (!stated.size) return out;
  const assets = await environmentProducts(db, orgId, environmentId);
  for (const [cve, advisories] of stated) {
    out.set(
      cve,
      advisories
        .flatMap(numberedStatements)
        .map((st) => ({ ...st, asset_ids: assets.filter((x) => statementCovers(st, x)).map((x) => x.asset_id) })),
    );
  }
  return out;
}

/** The vendor statements about one CVE (whether or not the team decided it), for the pages and the API. */
export async function cveStatements(
  db: Db,
  orgId: number,
  environmentId: number,
  cveId: string,
): Promise<{ items: VendorStatementView[] }> {
  if (!(await environmentExists(db, orgId, environmentId))) throw environmentNotFound(environmentId);
  return { items: (await vendorStatements(db, orgId, environmentId, [cveId])).get(cveId) ?? [] };
}

/**
 * The decision that adopts a vendor statement (adoptedDecision), its comment naming the statement adopted; the
 * service sets it like any decision. `justification`: the team's, used when the vendor states none for a
 * not_affected statement (else the set refuses it, as any not_affected without one).
 */
export async function adoption(
  db: Db,
  orgId: number,
  environmentId: number,
  cveId: string,
  input: { statement_id: string; justification?: Justification | null; comment?: string | null },
): Promise<DecisionInput & { comment: string }> {
  if (!(await environmentExists(db, orgId, environmentId))) throw environmentNotFound(environmentId);
  const st = ((await vendorStatements(db, orgId, environmentId, [cveId])).get(cveId) ?? []).find(
    (x) => x.id === input.statement_id,
  );
  if (!st) {
    throw new Refusal('statement_not_found', 'No such vendor statement about this CVE (GET its vendor-statements)', {
      cve_id: cveId,
      statement_id: input.statement_id,
    });
  }
  const said = `Adopted the vendor's statement ${st.id} (${st.product_name}).`;
  const comment = input.comment?.trim() ? `${said} ${input.comment.trim()}` : said;
  return { ...adoptedDecision(st, input.justification ?? null), comment: comment.slice(0, COMMENT_MAX) };
}
