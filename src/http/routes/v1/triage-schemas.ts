// The TypeBox schemas the triage routes share (docs/triage.md): the path parameters, the decision fields a client
// sets, and the decision and vendor statement as answered.
import { Type } from 'typebox';
import { StringEnum } from '../../schemas/common.ts';
import { CVE_ID_PATTERN, CVE_ID_PATTERN_ANY_CASE } from '../../../domain/cve-id.ts';
import {
  COMMENT_MAX,
  DECISION_ASSETS_MAX,
  DECISION_STATUSES,
  JUSTIFICATIONS,
  STATEMENT_MAX,
} from '../../../domain/triage.ts';

const EnvironmentId = Type.String({
  pattern: '^[0-9]{1,19}$',
  description: 'Environment id (from POST or GET /api/v1/environments)',
});
export const CveId = Type.String({ pattern: CVE_ID_PATTERN_ANY_CASE, description: 'CVE-<year>-<number>' });
export const EnvParams = Type.Object({ environment_id: EnvironmentId });
export const DecisionParams = Type.Object({ environment_id: EnvironmentId, cve_id: CveId });

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Statement = (what: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: STATEMENT_MAX, description: what })));

export const DecisionFieldsSchema = {
  status: StringEnum(DECISION_STATUSES, {
    description: 'VEX status: under_investigation, affected, not_affected or fixed',
  }),
  justification: Type.Optional(
    Type.Union([
      StringEnum(JUSTIFICATIONS, {
        description: "not_affected only, and required there: CISA's status justifications",
      }),
      Type.Null(),
    ]),
  ),
  impact_statement: Statement("Why the CVE does (not) touch these assets, in the team's words"),
  action_statement: Statement(
    'affected only, and required there: what is done and when ("segmented behind the cell firewall; patch at the March outage")',
  ),
  due_date: Type.Optional(
    Nullable(
      Type.String({
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
        description: 'affected only: when the action is due (YYYY-MM-DD)',
      }),
    ),
  ),
  asset_ids: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: DECISION_ASSETS_MAX,
      description: 'Narrows the decision to these assets of the environment; omitted or empty: the whole environment',
    }),
  ),
  assignee_member_id: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'A member of your organization (GET /api/v1/account/team)',
    }),
  ),
};
export const Comment = Type.Optional(
  Nullable(Type.String({ maxLength: COMMENT_MAX, description: 'Kept in the history and listed with the decision' })),
);

export const VendorStatement = Type.Object({
  id: Type.String({ description: '<advisory id>#<n>: names the statement to adopt' }),
  by: Type.Literal('vendor', { description: "The vendor's statement (a CSAF advisory), not the team's" }),
  advisory_id: Type.String(),
  advisory_title: Type.String(),
  advisory_url: Type.Union([Type.String(), Type.Null()]),
  status: StringEnum(['fixed', 'not_affected'] as const, {
    description: 'CSAF fixed / first_fixed, known_not_affected',
  }),
  vendor: Type.Union([Type.String(), Type.Null()]),
  product: Type.String(),
  version: Type.Union([Type.String(), Type.Null()], {
    description: 'The version branch as stated: an exact version or a range text',
  }),
  product_name: Type.String(),
  justification: Type.Union([Type.String(), Type.Null()], {
    description: "A CSAF flag naming the product (CISA's justifications)",
  }),
  impact_statement: Type.Union([Type.String(), Type.Null()]),
  action_statement: Type.Union([Type.String(), Type.Null()], {
    description: 'vendor_fix remediations naming the product',
  }),
  asset_ids: Type.Array(Type.String(), {
    description: "The environment's assets whose vendor and product (and exact version) are the statement's",
  }),
});

export const Decision = Type.Object({
  environment_id: Type.Integer(),
  cve_id: Type.String({ pattern: CVE_ID_PATTERN }),
  status: StringEnum(DECISION_STATUSES),
  open: Type.Boolean({
    description: 'false for not_affected and fixed: the CVE leaves the open counts (shown, never hidden)',
  }),
  justification: Type.Union([StringEnum(JUSTIFICATIONS), Type.Null()]),
  impact_statement: Type.Union([Type.String(), Type.Null()]),
  action_statement: Type.Union([Type.String(), Type.Null()]),
  due_date: Type.Union([Type.String(), Type.Null()]),
  asset_ids: Type.Array(Type.String(), { description: 'Empty: the whole environment' }),
  assignee: Type.Union([
    Type.Object({ member_id: Type.Integer(), email: Type.String(), name: Type.String() }),
    Type.Null(),
  ]),
  review: Type.Object({
    needed: Type.Boolean({
      description:
        'A new fact arrived after the decision (KEV added, ranges changed, exploit maturity up): review it again',
    }),
    reasons: Type.Array(Type.String()),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  version: Type.Integer({ description: 'Raised by every change' }),
  source: StringEnum(['api', 'bulk', 'import'] as const),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Type.Object({
    member_id: Type.Union([Type.Integer(), Type.Null()]),
    key_id: Type.Union([Type.Integer(), Type.Null()]),
  }),
  comments: Type.Optional(
    Type.Array(
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        by: Type.String(),
        member_id: Type.Union([Type.Integer(), Type.Null()]),
        text: Type.String(),
      }),
    ),
  ),
  vendor_statements: Type.Optional(
    Type.Array(VendorStatement, {
      description: "What CISA ICS advisories (CSAF) state about the CVE: the vendor's VEX, beside the team's decision",
    }),
  ),
});
