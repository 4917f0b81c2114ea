// Triage decisions (docs/triage.md): the rules of what a team may decide about one CVE in one environment, in VEX's
// words (CISA, "Minimum Requirements for Vulnerability Exploitability eXchange (VEX)", 2023), how a decision moves a
// CVE out of the open counts, and which new facts send it back for review. Pure.

export const DECISION_STATUSES = ['under_investigation', 'affected', 'not_affected', 'fixed'] as const;
export type DecisionStatus = (typeof DECISION_STATUSES)[number];

/** CISA's status justifications for not_affected (the same five in CSAF 2.0 flags and OpenVEX). */
export const JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
] as const;
export type Justification = (typeof JUSTIFICATIONS)[number];

export const STATEMENT_MAX = 4000;
export const COMMENT_MAX = 4000;
/** Assets one decision may narrow to. */
export const DECISION_ASSETS_MAX = 500;

/** The fields a team sets (what the history keeps before and after). */
export interface DecisionFields {
  status: DecisionStatus;
  justification: Justification | null;
  impact_statement: string | null;
  action_statement: string | null;
  due_date: string | null;
  asset_ids: string[];
  assignee_member_id: number | null;
}

export interface DecisionInput {
  status: string;
  justification?: string | null;
  impact_statement?: string | null;
  action_statement?: string | null;
  due_date?: string | null;
  asset_ids?: string[] | null;
  assignee_member_id?: number | null;
}

export interface FieldError {
  field: string;
  message: string;
  type: string;
}

const blank = (s: string | null | undefined) => (s === undefined || s === null || s.trim() === '' ? null : s.trim());

/** A calendar date YYYY-MM-DD that exists (2026-02-30 does not). */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * A decision as stored, or the field errors that refuse it (`at`: the field prefix, "body" or "body.decision").
 * not_affected needs a justification from CISA's list and only it takes one; affected needs an action statement
 * and only it takes a due date. Statements are trimmed; blank is none. Asset ids are de-duplicated and sorted.
 */
export function normalizeDecision(
  input: DecisionInput,
  at = 'body',
): { ok: true; fields: DecisionFields } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err = (field: string, message: string, type: string) => errors.push({ field: `${at}.${field}`, message, type });
  const status = input.status as DecisionStatus;
  if (!DECISION_STATUSES.includes(status))
    err('status', `status must be one of ${DECISION_STATUSES.join(', ')}`, 'value_error.enum');
  const justification = blank(input.justification) as Justification | null;
  if (justification !== null && !JUSTIFICATIONS.includes(justification))
    err('justification', `justification must be one of ${JUSTIFICATIONS.join(', ')}`, 'value_error.enum');
  else if (status === 'not_affected' && justification === null)
    err('justification', 'not_affected needs a justification (CISA minimum VEX requirements)', 'value_error.missing');
  else if (status !== 'not_affected' && justification !== null)
    err('justification', 'only a not_affected decision takes a justification', 'value_error.not_allowed');
  const impact = blank(input.impact_statement);
  const action = blank(input.action_statement);
  if (impact !== null && impact.length > STATEMENT_MAX)
    err('impact_statement', `at most ${STATEMENT_MAX} characters`, 'value_error.too_long');
  if (action !== null && action.length > STATEMENT_MAX)
    err('action_statement', `at most ${STATEMENT_MAX} characters`, 'value_error.too_long');
  if (status === 'affected' && action === null)
    err(
      'action_statement',
      'an affected decision needs an action statement (what is done about it, and when)',
      'value_error.missing',
    );
  const due = blank(input.due_date);
  if (due !== null && !isCalendarDate(due))
    err('due_date', 'due_date must be a calendar date YYYY-MM-DD', 'value_error.date');
  else if (due !== null && status !== 'affected')
    err('due_date', 'only an affected decision takes a due date', 'value_error.not_allowed');
  const assets = [...new Set((input.asset_ids ?? []).map((a) => a.trim()).filter((a) => a !== ''))].sort();
  if (assets.length > DECISION_ASSETS_MAX)
    err('asset_ids', `at most ${DECISION_ASSETS_MAX} assets`, 'value_error.too_many');
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      status,
      justification,
      impact_statement: impact,
      action_statement: action,
      due_date: due,
      asset_ids: assets,
      assignee_member_id: input.assignee_member_id ?? null,
    },
  };
}

/** Whether a CVE still counts as open under a decision: not_affected and fixed leave the open counts. */
export function isOpen(status: DecisionStatus | null): boolean {
  return status !== 'not_affected' && status !== 'fixed';
}

/** Whether a decision covers an asset: an environment-wide one (no assets named) covers all of them. */
export function coversAsset(d: { asset_ids: readonly string[] }, assetId: string): boolean {
  return d.asset_ids.length === 0 || d.asset_ids.includes(assetId);
}

/**
 * The reason shown on a decision and in the alert for a change that is a new fact about a decided CVE (KEV added,
 * ranges changed, exploit maturity up: it sends the decision back for review); null for any other change kind.
 */
export function reviewReason(kind: string): string | null {
  switch (kind) {
    case 'kev_added':
      return 'review again: added to KEV after the decision';
    case 'ranges_changed':
      return 'review again: affected ranges changed after the decision';
    case 'exploit_maturity_up':
      return 'review again: exploit maturity rose after the decision';
    default:
      return null;
  }
}

/** Whether two decisions' fields are the same (a set that changes nothing still records its comment, nothing else). */
export function sameFields(a: DecisionFields, b: DecisionFields): boolean {
  return (
    a.status === b.status &&
    a.justification === b.justification &&
    a.impact_statement === b.impact_statement &&
    a.action_statement === b.action_statement &&
    a.due_date === b.due_date &&
    a.assignee_member_id === b.assignee_member_id &&
    a.asset_ids.length === b.asset_ids.length &&
    a.asset_ids.every((x, i) => x === b.asset_ids[i])
  );
}
