// Triage decisions (docs/triage.md): get, set, clear, history, list and bulk over one environment's CVEs, for the
// API routes and the web app's pages alike. Every change is written with its history row in one transaction
// (store/triage-decisions.ts, store/triage-history.ts). Refusals are thrown (services/refusal.ts) and rendered by the error handler; nothing is half-stored.
import type { Db } from '../store/db.ts';
import { lockEnvironment, environmentExists } from '../store/windows.ts';
import {
  clearDecision,
  decisionStatuses,
  getDecisions,
  listDecisions,
  writeDecisions,
  type DecisionFilter,
  type DecisionRow,
} from '../store/triage-decisions.ts';
import {
  appendHistory,
  snapshotOf,
  decisionComments,
  decisionHistory,
  type Actor,
  type HistoryRow,
  type Snapshot,
} from '../store/triage-history.ts';
import { bulkTargets, bulkWriteDecisions, type BulkFilter } from '../store/triage-bulk.ts';
import { knownCves, membersOf, storedAssetIds, environmentProducts } from '../store/triage-references.ts';
import { vendorStatementsOf } from '../store/vendor-statements.ts';
import {
  isOpen,
  normalizeDecision,
  sameFields,
  COMMENT_MAX,
  type DecisionFields,
  type DecisionInput,
  type DecisionStatus,
  type FieldError,
  type Justification,
} from '../domain/triage.ts';
import { pageArgs, type PageRequest, type Reader } from './cve-reader.ts';
import {
  adoptedDecision,
  numberedStatements,
  statementCovers,
  type VendorStatementView,
} from '../domain/vendor-statements.ts';
import { environmentNotFound, invalidInput, Refusal } from './refusal.ts';

const decisionNotFound = (cveId: string) =>
  new Refusal('decision_not_found', 'This CVE has no decision in this environment', { cve_id: cveId });

/** CVEs one bulk call may decide. */
export const BULK_MAX = 10_000;

export interface DecisionView {
  environment_id: number;
  cve_id: string;
  status: DecisionStatus;
  open: boolean;
  justification: Justification | null;
  impact_statement: string | null;
  action_statement: string | null;
  due_date: string | null;
  asset_ids: string[];
  assignee: { member_id: number; email: string; name: string } | null;
  review: { needed: boolean; reasons: string[]; since: string | null };
  version: number;
  source: 'api' | 'bulk' | 'import';
  created_at: string;
  updated_at: string;
  updated_by: { member_id: number | null; key_id: number | null };
  comments?: { at: string; by: string; member_id: number | null; text: string }[];
  /** What CSAF advisories state about the CVE (the vendor's VEX), beside the team's decision. */
  vendor_statements?: VendorStatementView[];
}

export interface HistoryView {
  id: number;
  action: HistoryRow['action'];
  at: string;
  actor: { member_id: number | null; key_id: number | null; label: string };
  before: Snapshot | null;
  after: Snapshot | null;
  comment: string | null;
}

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

export function decisionView(r: DecisionRow): DecisionView {
  return {
    environment_id: r.environment_id,
    cve_id: r.cve_id,
    status: r.status,
    open: isOpen(r.status),
    justification: r.justification,
    impact_statement: r.impact_statement,
    action_statement: r.action_statement,
    due_date: r.due_date,
    asset_ids: r.asset_ids,
    assignee:
      r.assignee_member_id !== null && r.assignee_email !== null
        ? { member_id: r.assignee_member_id, email: r.assignee_email, name: r.assignee_name ?? '' }
        : null,
    review: {
      needed: r.review_reasons.length > 0,
      reasons: r.review_reasons,
      since: r.review_since ? new Date(r.review_since).toISOString() : null,
    },
    version: r.version,
    source: r.source,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    updated_by: { member_id: r.updated_by_member, key_id: r.updated_by_key },
  };
}

function historyView(r: HistoryRow): HistoryView {
  return {
    id: r.id,
    action: r.action,
    at: new Date(r.at).toISOString(),
    actor: { member_id: r.actor_member, key_id: r.actor_key, label: r.actor_label },
    before: r.before,
    after: r.after,
    comment: r.comment,
  };
}

const fieldsOf = (r: DecisionRow): DecisionFields => ({
  status: r.status,
  justification: r.justification,
  impact_statement: r.impact_statement,
  action_statement: r.action_statement,
  due_date: r.due_date,
  asset_ids: r.asset_ids,
  assignee_member_id: r.assignee_member_id,
});

function commentOf(
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

export function createTriageService(db: Db) {
  /** The assignee and the narrowed assets must be the organization's and the environment's: field errors otherwise. */
  async function checkRefs(orgId: number, environmentId: number, f: DecisionFields, at: string): Promise<FieldError[]> {
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

  /** The vendor statements about these CVEs, each with the environment's assets it names. */
  async function vendorStatements(
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

  return {
    /** The vendor statements about one CVE (whether or not the team decided it), for the pages and the API. */
    async vendorStatements(
      orgId: number,
      environmentId: number,
      cveId: string,
    ): Promise<{ items: VendorStatementView[] }> {
      if (!(await environmentExists(db, orgId, environmentId))) throw environmentNotFound(environmentId);
      return { items: (await vendorStatements(orgId, environmentId, [cveId])).get(cveId) ?? [] };
    },

    /**
     * Adopts a vendor statement as the team's decision, in one call (adoptedDecision): set like any decision, its
     * history row commented with the statement adopted. `justification`: the team's, used when the vendor states none
     * for a not_affected statement (else the set refuses it, as any not_affected without one).
     */
    async adopt(
      w: Writer,
      environmentId: number,
      cveId: string,
      input: { statement_id: string; justification?: Justification | null; comment?: string | null },
    ) {
      if (!(await environmentExists(db, w.orgId, environmentId))) throw environmentNotFound(environmentId);
      const st = ((await vendorStatements(w.orgId, environmentId, [cveId])).get(cveId) ?? []).find(
        (x) => x.id === input.statement_id,
      );
      if (!st) {
        throw new Refusal(
          'statement_not_found',
          'No such vendor statement about this CVE (GET its vendor-statements)',
          { cve_id: cveId, statement_id: input.statement_id },
        );
      }
      const said = `Adopted the vendor's statement ${st.id} (${st.product_name}).`;
      const comment = input.comment?.trim() ? `${said} ${input.comment.trim()}` : said;
      return this.set(w, environmentId, cveId, {
        ...adoptedDecision(st, input.justification ?? null),
        comment: comment.slice(0, COMMENT_MAX),
      });
    },

    /** One CVE's decision in an environment, with its comments; null when none. */
    async get(orgId: number, environmentId: number, cveId: string): Promise<{ decision: DecisionView }> {
      if (!(await environmentExists(db, orgId, environmentId))) throw environmentNotFound(environmentId);
      const r = (await getDecisions(db, orgId, environmentId, [cveId])).get(cveId);
      if (!r) throw decisionNotFound(cveId);
      const comments = await decisionComments(db, orgId, environmentId, cveId);
      return {
        decision: {
          ...decisionView(r),
          comments: comments.map((c) => ({
            at: new Date(c.at).toISOString(),
            by: c.actor_label,
            member_id: c.actor_member,
            text: c.comment,
          })),
          vendor_statements: (await vendorStatements(orgId, environmentId, [cveId])).get(cveId) ?? [],
        },
      };
    },

    /**
     * Sets (creates or replaces) one CVE's decision. The CVE must be in the corpus. A set that changes no field
     * but carries a comment records the comment; one that changes nothing records nothing. `created` tells a new one.
     */
    async set(
      w: Writer,
      environmentId: number,
      cveId: string,
      input: DecisionInput & { comment?: string | null },
    ): Promise<{ decision: DecisionView; created: boolean; changed: boolean }> {
      if (!(await environmentExists(db, w.orgId, environmentId))) throw environmentNotFound(environmentId);
      const n = normalizeDecision(input);
      const c = commentOf(input.comment, 'body');
      if (!n.ok || !c.ok) throw invalidInput(null, [...(n.ok ? [] : n.errors), ...(c.ok ? [] : c.errors)]);
      const refErrors = await checkRefs(w.orgId, environmentId, n.fields, 'body');
      if (refErrors.length) throw invalidInput(null, refErrors);
      if (!(await knownCves(db, [cveId])).has(cveId))
        throw new Refusal('cve_not_found', 'No such CVE in the corpus', { cve_id: cveId });
      const out = await db.transaction().execute(async (trx) => {
        if (!(await lockEnvironment(trx, w.orgId, environmentId))) return null;
        const before = await getDecisions(trx, w.orgId, environmentId, [cveId], true);
        const cur = before.get(cveId);
        const changed = !cur || !sameFields(fieldsOf(cur), n.fields) || cur.review_reasons.length > 0;
        if (changed)
          await writeDecisions(
            trx,
            w.orgId,
            environmentId,
            [{ cve_id: cveId, fields: n.fields, comment: c.comment }],
            before,
            actorOf(w),
            'set',
          );
        else if (c.comment !== null) {
          await appendHistory(trx, w.orgId, environmentId, actorOf(w), [
            { cve_id: cveId, action: 'set', before: snapshotOf(cur), after: snapshotOf(cur), comment: c.comment },
          ]);
        }
        return { created: !cur, changed };
      });
      if (!out) throw environmentNotFound(environmentId);
      const got = await this.get(w.orgId, environmentId, cveId);
      return { decision: got.decision, ...out };
    },

    /** Clears one CVE's decision (the CVE is undecided again); its history stays, with the clear. */
    async clear(
      w: Writer,
      environmentId: number,
      cveId: string,
      comment: string | null = null,
    ): Promise<{ removed: DecisionView }> {
      const c = commentOf(comment, 'query');
      if (!c.ok) throw invalidInput(null, c.errors);
      const r = await db.transaction().execute(async (trx) => {
        if (!(await lockEnvironment(trx, w.orgId, environmentId))) return 'environment' as const;
        return clearDecision(trx, w.orgId, environmentId, cveId, actorOf(w), c.comment);
      });
      if (r === 'environment') throw environmentNotFound(environmentId);
      if (!r) throw decisionNotFound(cveId);
      return { removed: decisionView(r) };
    },

    /** The trail of one CVE's decision in an environment, oldest change first (kept after a clear). */
    async history(
      who: Reader & { orgId: number },
      environmentId: number,
      cveId: string,
      q: PageRequest,
    ): Promise<{ items: HistoryView[]; total: number; page: number; perPage: number }> {
      if (!(await environmentExists(db, who.orgId, environmentId))) throw environmentNotFound(environmentId);
      const { page, perPage, offset } = pageArgs(who, q);
      const r = await decisionHistory(db, who.orgId, environmentId, cveId, perPage, offset);
      return { items: r.rows.map(historyView), total: r.total, page, perPage };
    },

    /** A page of the environment's decisions, most recently changed first. */
    async list(
      who: Reader & { orgId: number },
      environmentId: number,
      f: DecisionFilter,
      q: PageRequest,
    ): Promise<{ items: DecisionView[]; total: number; page: number; perPage: number }> {
      if (!(await environmentExists(db, who.orgId, environmentId))) throw environmentNotFound(environmentId);
      const { page, perPage, offset } = pageArgs(who, q);
      const r = await listDecisions(db, who.orgId, environmentId, f, perPage, offset);
      const stated = await vendorStatements(
        who.orgId,
        environmentId,
        r.rows.map((x) => x.cve_id),
      );
      return {
        items: r.rows.map((x) => ({ ...decisionView(x), vendor_statements: stated.get(x.cve_id) ?? [] })),
        total: r.total,
        page,
        perPage,
      };
    },

    /**
     * Applies one decision to every CVE of the environment a filter selects (bulkTargets; `cve_ids` alone names CVEs
     * of the corpus directly). At most BULK_MAX CVEs, all or none. CVEs whose decision already has these fields are
     * left as they are (`unchanged`). `dryRun`: the selection only, nothing written.
     */
    async bulk(
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
      const refErrors = await checkRefs(w.orgId, environmentId, n.fields, 'body.decision');
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
      if (input.dry_run)
        return { matched: ids.length, created: 0, updated: 0, unchanged: 0, cve_ids: ids, dry_run: true };
      const r = await db.transaction().execute(async (trx) => {
        if (!(await lockEnvironment(trx, w.orgId, environmentId))) return null;
        return bulkWriteDecisions(trx, w.orgId, environmentId, ids, n.fields, c.comment, actorOf(w));
      });
      if (!r) throw environmentNotFound(environmentId);
      return { matched: ids.length, ...r, cve_ids: ids, dry_run: false };
    },

    /** Each CVE's decision in an environment (correlation answers, counts, the alert run, the web app). */
    statuses: (orgId: number, environmentId: number) => decisionStatuses(db, orgId, environmentId),
  };
}

export type TriageService = ReturnType<typeof createTriageService>;
