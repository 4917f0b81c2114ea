// Vendor statements (docs/triage.md "Vendor statements"): a CSAF advisory's `fixed` and `known_not_affected`
// product statuses are the vendor's own VEX. Which assets of an environment a statement is about, and the decision a
// team takes when it adopts one. Pure.
import type { VendorStatement } from './records.ts';
import { STATEMENT_MAX, type DecisionInput, type Justification } from './triage.ts';

/** A statement as the API shows it: marked as the vendor's, with its advisory and the assets it names. */
export interface VendorStatementView extends VendorStatement {
  /** `<advisory id>#<n>`: names the statement to adopt. */
  id: string;
  by: 'vendor';
  advisory_id: string;
  advisory_title: string;
  advisory_url: string | null;
  /** The environment's assets whose vendor and product (and exact version, when both state one) are the statement's. */
  asset_ids: string[];
}

/** An advisory's statements about one CVE, as the corpus keeps them (store/vendor-statements.ts vendorStatementsOf). */
export interface StatedAdvisory {
  advisory_id: string;
  title: string;
  url: string | null;
  statements: VendorStatement[];
}

/** An advisory's statements, each named `<advisory id>#<n>` (n from 1, the advisory's order) and marked as the vendor's. */
export function numberedStatements(a: StatedAdvisory): Omit<VendorStatementView, 'asset_ids'>[] {
  return a.statements.map((st, n) => ({
    ...st,
    id: `${a.advisory_id}#${n + 1}`,
    by: 'vendor' as const,
    advisory_id: a.advisory_id,
    advisory_title: a.title,
    advisory_url: a.url,
  }));
}

/**
 * A vendor statement as a correlation answer shows it on a CVE of an asset it names, beside the team's decision: the
 * statement's id (to adopt it, or read it whole at GET …/decisions/{cve_id}/vendor-statements), whose it is, and what
 * it says.
 */
export interface VendorMark {
  id: string;
  by: 'vendor';
  status: VendorStatement['status'];
  advisory_id: string;
  product_name: string;
  justification: string | null;
}

/** The statements about a CVE that name an asset (statementCovers), as answers show them; [] when none. */
export type StatementLookup = (cveId: string, asset: AssetNameplate) => VendorMark[];

export function statementLookup(stated: ReadonlyMap<string, readonly StatedAdvisory[]>): StatementLookup {
  const numbered = new Map([...stated].map(([cve, list]) => [cve, list.flatMap(numberedStatements)]));
  return (cve, asset) =>
    (numbered.get(cve) ?? [])
      .filter((s) => statementCovers(s, asset))
      .map((s) => ({
        id: s.id,
        by: s.by,
        status: s.status,
        advisory_id: s.advisory_id,
        product_name: s.product_name,
        justification: s.justification,
      }));
}

export interface AssetNameplate {
  asset_id: string;
  vendor: string | null;
  product: string | null;
  version: string | null;
}

const norm = (s: string | null | undefined) => (s ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '');

/** One name within the other, once both are lowered and stripped to letters and digits (3 or more of them). */
function sameName(a: string | null, b: string | null): boolean {
  const x = norm(a);
  const y = norm(b);
  return x.length >= 3 && y.length >= 3 && (x.includes(y) || y.includes(x));
}

/** An exact version as stated: no range operator, no wildcard, no vers: URI, no spaces. */
const exactVersion = (v: string | null) => v !== null && /^[vV]?[0-9][0-9A-Za-z._-]*$/.test(v.trim());

/**
 * Whether a statement is about an asset: the vendor names match (one within the other: "Schneider Electric" and
 * "Schneider"), the product names match the same way, and when the statement states an exact version and the asset
 * one, they are equal (ignoring case and a leading v). A range or "all versions" is not compared.
 */
export function statementCovers(
  s: Pick<VendorStatement, 'vendor' | 'product' | 'version'>,
  a: AssetNameplate,
): boolean {
  if (!sameName(s.vendor, a.vendor) || !sameName(s.product, a.product)) return false;
  if (exactVersion(s.version) && a.version !== null && a.version.trim() !== '') {
    return s.version!.trim().replace(/^v/i, '').toLowerCase() === a.version.trim().replace(/^v/i, '').toLowerCase();
  }
  return true;
}

/**
 * The decision a team takes by adopting a statement: its status; for not_affected the vendor's justification, else
 * the one the team gives (none given: the normal validation asks for it); the vendor's impact statement, else one
 * saying whose statement it is; the vendor's fix as the action statement; narrowed to the assets the statement names
 * (none named: the whole environment).
 */
export function adoptedDecision(s: VendorStatementView, teamJustification: Justification | null): DecisionInput {
  const said = `${s.advisory_id}: ${s.vendor ? `${s.vendor} states ` : 'the vendor states '}${s.product_name} ${s.status === 'fixed' ? 'fixed' : 'not affected'}.`;
  return {
    status: s.status,
    justification: s.status === 'not_affected' ? (s.justification ?? teamJustification) : null,
    impact_statement: (s.impact_statement ? `${said} ${s.impact_statement}` : said).slice(0, STATEMENT_MAX),
    action_statement: s.action_statement?.slice(0, STATEMENT_MAX) ?? null,
    asset_ids: s.asset_ids,
  };
}
