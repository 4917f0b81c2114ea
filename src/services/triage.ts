// Triage decisions (docs/triage.md): get, set, clear, history and list over one environment's CVEs, for the API
// routes and the web app's pages alike; bulk in triage-bulk.ts, the vendor statements (VEX) in triage-statements.ts.
// Every change is written with its history row in one transaction (store/triage-decisions.ts, store/triage-history.ts). Refusals are thrown
// (services/refusal.ts) and rendered by the error handler; nothing is half-stored.
import type { Db } from '../store/db.ts';
import { lockEnvironment, environmentExists } from '../store/windows.ts';
import {
  appendHistory,
  snapshotOf,
  decisionComments,
  decisionHistory,
  type HistoryRow,
  type Snapshot,
} from '../store/triage-history.ts';
import {
  clearDecision,
  decisionStatuses,
  getDecisions,
  listDecisions,
  writeDecisions,
  type DecisionFilter,
  type DecisionRow,
} from '../store/triage-decisions.ts';
import { knownCves } from '../store/triage-references.ts';
import {
  isOpen,
  normalizeDecision,
  sameFields,
  type DecisionFields,
  type DecisionInput,
  type DecisionStatus,
  type Justification,
} from '../domain/triage.ts';
import { pageArgs, type PageRequest, type Reader } from './cve-reader.ts';
import type { VendorStatementView } from '../domain/vendor-statements.ts';
import { environmentNotFound, invalidInput, Refusal } from './refusal.ts';
import { actorOf, checkRefs, commentOf, type Writer } from './triage-writes.ts';
import { adoption, cveStatements, vendorStatements } from './triage-statements.ts';
import { bulkDecide } from './triage-bulk.ts';

const decisionNotFound = (cveId: string) =>
  new Refusal('decision_not_found', 'This CVE has no decision in this environment', { cve_id: cveId });

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

export function createTriageService(db: Db) {
  return {
    /** The vendor statements about one CVE (whether or not the team decided it), for the pages and the API. */
    vendorStatements: (orgId: number, environmentId: number, cveId: string) =>
      cveStatements(db, orgId, environmentId, cveId),

    /** Adopts a vendor statement as the team's decision, in one call: set like any decision (triage-statements.ts adoption). */
    async adopt(
      w: Writer,
      environmentId: number,
      cveId: string,
      input: { statement_id: string; justification?: Justification | null; comment?: string | null },
    ) {
      return this.set(w, environmentId, cveId, await adoption(db, w.orgId, environmentId, cveId, input));
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
          vendor_statements: (await vendorStatements(db, orgId, environmentId, [cveId])).get(cveId) ?? [],
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
      const refErrors = await checkRefs(db, w.orgId, environmentId, n.fields, 'body');
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
        db,
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

    /** One decision applied to every CVE of the environment a filter selects (triage-bulk.ts). */
    bulk: (w: Writer, environmentId: number, input: Parameters<typeof bulkDecide>[3]) =>
      bulkDecide(db, w, environmentId, input),

    /** Each CVE's decision in an environment (correlation answers, counts, the alert run, the web app). */
    statuses: (orgId: number, environmentId: number) => decisionStatuses(db, orgId, environmentId),
  };
}

export type TriageService = ReturnType<typeof createTriageService>;
