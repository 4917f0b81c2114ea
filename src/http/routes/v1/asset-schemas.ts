// TypeBox schemas of v1 asset correlation (docs/correlation.md §5): correlate-cves, its /check and
// check-windows. One schema per shape: the TS type, the response serializer (a whitelist) and the OpenAPI source.
import { Type, type TSchema } from 'typebox';
import { ApiBlock, PaginationSchema } from '../../envelope.ts';
import { SORTS } from '../../../services/correlation-answer.ts';

const Str = Type.String();
const NStr = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const NNum = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const Int = Type.Integer({ minimum: 0 });
const strict = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: false });
const Bound = Type.Unsafe<{ version: string; inclusive: boolean } | null>({
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['version', 'inclusive'],
      properties: { version: { type: 'string' }, inclusive: { type: 'boolean' } },
    },
  ],
});
const Confidence = Type.Union([
  Type.Literal('exact'),
  Type.Literal('normalised'),
  Type.Literal('family'),
  Type.Literal('variant'),
  Type.Literal('member'),
]);
const Status = Type.Union([Type.Literal('affected'), Type.Literal('not_affected'), Type.Literal('needs_review')]);

export const AssetError = strict({ code: Str, field: Str, message: Str });
export const RejectedAsset = strict({
  asset_id: NStr,
  index: Int,
  errors: Type.Array(AssetError),
  retryable: Type.Literal(false),
  retry_after_seconds: Type.Null(),
  action: Type.Literal('fix_input'),
});

const Match = strict({ confidence: Confidence, basis: Str });
const Range = strict({
  source: Type.Union([Type.Literal('nvd'), Type.Literal('cve5'), Type.Literal('csaf')]),
  source_name: Str,
  source_key: NStr,
  vendor: Str,
  product: Str,
  cpe: NStr,
  status: Type.Union([Type.Literal('affected'), Type.Literal('unaffected'), Type.Literal('unknown')]),
  version: NStr,
  start: Bound,
  end: Bound,
  text: NStr,
  running_on: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
});

export const AssetCve = strict({
  cve_id: Str,
  title: Str,
  status: Status,
  reason: Str,
  match: Match,
  range: Range,
  fixed_version: NStr,
  severity: NStr,
  cvss: strict({ score: NNum, version: NStr, vector: NStr }),
  bcs_score: Type.Number(),
  epss: strict({ score: NNum, percentile: NNum }),
  known_exploited: Type.Boolean(),
  exploit_maturity: Str,
  published_at: NStr,
  priority_rank: Type.Integer({ minimum: 1 }),
  decision: Type.Optional(
    Type.Union(
      [
        strict({
          status: Type.Union(['under_investigation', 'affected', 'not_affected', 'fixed'].map((x) => Type.Literal(x))),
          open: Type.Boolean({ description: 'false for not_affected and fixed' }),
          review_again: Type.Boolean({ description: 'A new fact arrived after the decision (docs/triage.md)' }),
        }),
        Type.Null(),
      ],
      {
        description:
          'In an environment (environment_id given, or stored results): the triage decision covering this CVE on this asset; null when undecided',
      },
    ),
  ),
  vendor_statements: Type.Optional(
    Type.Array(
      strict({
        id: Type.String({
          description:
            '<advisory id>#<n>: the statement to adopt (POST …/decisions/{cve_id}/adopt), or to read whole (GET …/decisions/{cve_id}/vendor-statements)',
        }),
        by: Type.Literal('vendor', { description: "The vendor's statement, not the team's decision" }),
        status: Type.Union([Type.Literal('fixed'), Type.Literal('not_affected')], {
          description: 'CSAF fixed / first_fixed, known_not_affected',
        }),
        advisory_id: Str,
        product_name: Type.String({ description: 'The product as the advisory names it' }),
        justification: Type.Unsafe<string | null>({
          type: ['string', 'null'],
          description: "A CSAF flag naming the product (CISA's justifications)",
        }),
      }),
      {
        minItems: 1,
        description:
          "In an environment, beside the team's decision: what CISA ICS advisories' vendors state about this CVE for this asset's product " +
          '(vendor and product names, and an exact version when both state one; docs/triage.md "Vendor statements"). Absent when no vendor states anything for it',
      },
    ),
  ),
  _links: strict({ self: Str }),
});

const StatusCounts = strict({ affected: Int, not_affected: Int, needs_review: Int });
/** In an environment: the affected and needs-review CVEs by triage decision; open leaves out not_affected and fixed (docs/triage.md). */
const DecisionCounts = Type.Object(
  {
    open: Int,
    undecided: Int,
    under_investigation: Int,
    affected: Int,
    not_affected: Int,
    fixed: Int,
    review_again: Int,
  },
  {
    additionalProperties: false,
    description:
      'In an environment: the affected and needs-review CVEs by triage decision; open counts the undecided, under_investigation and affected ones (not_affected and fixed are shown here, never hidden)',
  },
);

export const AssetResult = strict({
  asset_id: Str,
  vendor: Str,
  product: Str,
  version: NStr,
  matched_products: Type.Array(strict({ vendor: Str, product: Str, confidence: Confidence, basis: Str })),
  counts: StatusCounts,
  decision_counts: Type.Optional(DecisionCounts),
  cves: Type.Array(AssetCve),
  cves_page: Type.Optional(
    strict({
      page: Type.Integer({ minimum: 1 }),
      page_size: Type.Integer({ minimum: 1 }),
      total: Int,
      total_unfiltered: Int,
      has_more: Type.Boolean(),
    }),
  ),
});

const SortSchema = Type.Union(
  SORTS.map((s) => Type.Literal(s)),
  {
    description:
      'priority (default): affected, needs_review, not_affected, then known-exploited, exploit or PoC, a stated fix, BCS, CVSS, EPSS, CVE id. ' +
      "score: status, then CVSS highest first, then CVE id (v2's score orders by CVE id after the status). exploit: known-exploited, exploit or PoC, EPSS, CVSS. " +
      'newest: published date, newest first. priority_rank is the priority order whatever the sort.',
  },
);

const OptionsEcho = strict({
  include_not_affected: Type.Boolean(),
  affected_only: Type.Boolean(),
  known_exploited_only: Type.Boolean(),
  fix_available_only: Type.Boolean(),
  cve_page: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  cve_page_size: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
});

export const CorrelateResponse = strict({
  api: ApiBlock,
  data: strict({
    assets: Type.Array(AssetResult, { maxItems: 200 }),
    rejected: Type.Array(RejectedAsset),
    counts: StatusCounts,
    decision_counts: Type.Optional(DecisionCounts),
    environment_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
    stored: Type.Boolean(),
  }),
  meta: strict({ took_ms: Int, sort: SortSchema, filters: OptionsEcho }),
});

/** GET /api/v1/assets/results: a page of the stored assets, each decided again (the correlate-cves answer per asset). */
export const StoredResultsResponse = strict({
  api: ApiBlock,
  data: strict({
    assets: Type.Array(AssetResult, { maxItems: 200 }),
    rejected: Type.Array(RejectedAsset, {
      description: "Stored assets that today's validation refuses (rules tightened since they were stored)",
    }),
    counts: StatusCounts,
    decision_counts: Type.Optional(DecisionCounts),
    environment_id: Type.Integer(),
  }),
  pagination: PaginationSchema,
  meta: strict({ took_ms: Int, sort: SortSchema, filters: OptionsEcho }),
});

export const CheckResponse = strict({
  api: ApiBlock,
  data: strict({
    assets: Type.Array(
      strict({
        asset_id: Str,
        matched: Type.Boolean(),
        counts: StatusCounts,
        severity: strict({ critical: Int, high: Int, medium: Int, low: Int, none: Int }),
        known_exploited: Type.Boolean(),
      }),
      { maxItems: 200 },
    ),
    rejected: Type.Array(RejectedAsset),
  }),
  meta: strict({ took_ms: Int }),
});

export const CheckWindowsResponse = strict({
  api: ApiBlock,
  data: strict({
    hosts: Type.Array(
      strict({
        asset_id: Str,
        microsoft_product: NStr,
        patch_resolved: Type.Boolean(),
        end_of_life: Type.Boolean(),
        labels: Type.Array(Str),
        counts: strict({ confirmed_open: Int, cleared: Int, needs_review: Int }),
        top_fix_actions: Type.Array(
          strict({
            fix: Str,
            fix_type: Str,
            kb: NStr,
            cve_count: Int,
            known_exploited: Int,
            highest_score: NNum,
            group_rank: Type.Integer({ minimum: 1 }),
          }),
          { maxItems: 3 },
        ),
      }),
      { maxItems: 200 },
    ),
    rejected: Type.Array(
      strict({
        asset_id: NStr,
        index: Int,
        errors: Type.Array(AssetError),
        retryable: Type.Literal(false),
        retry_after_seconds: Type.Null(),
        action: Type.Literal('fix_input'),
      }),
    ),
  }),
  meta: strict({ took_ms: Int, microsoft_data_as_of: NStr }),
});

// ---- requests (documentation; the routes check the body themselves so each asset is refused alone) ----

const AssetInput = Type.Object({
  asset_id: Type.String({ maxLength: 64, description: 'Scrubbed identifier; never a hostname, IP, MAC or serial' }),
  vendor: Type.String({ description: 'Vendor as on the nameplate (e.g. Siemens AG)' }),
  product: Type.String({ description: 'Product as on the nameplate (e.g. SIMATIC S7-1500 CPU 1518-4 PN/DP)' }),
  version: Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'Version as on the nameplate (V2.9.2); empty or null = unknown',
    }),
  ),
  cpe: Type.Optional(
    Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'CPE 2.3 formatted string, when known' }),
  ),
});

export const CorrelateOptionsSchema = Type.Object(
  {
    include_not_affected: Type.Optional(Type.Boolean()),
    sort: Type.Optional(SortSchema),
    affected_only: Type.Optional(Type.Boolean()),
    known_exploited_only: Type.Optional(Type.Boolean()),
    fix_available_only: Type.Optional(Type.Boolean()),
    cve_page: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    cve_page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

export const CorrelateBody = Type.Object(
  {
    assets: Type.Array(AssetInput, { maxItems: 200 }),
    environment_id: Type.Optional(
      Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    ),
    options: Type.Optional(CorrelateOptionsSchema),
  },
  {
    additionalProperties: false,
    examples: [
      { assets: [{ asset_id: 'plc-line-3', vendor: 'Siemens AG', product: 'SIMATIC S7-1500', version: 'V2.9.2' }] },
    ],
  },
);

/** /check takes the same input as correlate-cves. @alias */
export const CheckBody = CorrelateBody;
