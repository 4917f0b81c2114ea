// TypeBox schemas of API v2 (spec §2.6, §2.7, §4.2). The correlate responses are streamed (stream.ts writes them
// host by host, so Fastify's serializer never sees them): their schema documents the shape in OpenAPI, and a test
// validates streamed responses against it with Ajv. The results response is serialized through its schema.
import { Type, type TSchema } from 'typebox';
import { ApiBlock, PaginationSchema } from '../../envelope.ts';
import { MAX_CVE_PAGE, OPTION_NAMES, SORTS } from '../../../domain/windows/view.ts';

const Str = Type.String();
const NStr = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const NNum = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const Int = Type.Integer({ minimum: 0 });
const strict = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: false });

const Link = strict({ url: Str, tags: Type.Array(Str), provided_by: Str });

export const V2Cve = strict({
  cve_id: Str,
  status: Type.Union([Type.Literal('confirmed open'), Type.Literal('cleared (patched)'), Type.Literal('needs review')]),
  fixed_build: NStr,
  kb: NStr,
  source: NStr,
  severity: NStr,
  known_exploited: Type.Boolean(),
  note: NStr,
  priority_rank: Type.Integer({ minimum: 1 }),
  priority_reason: Str,
  fix: strict({ available: Type.Boolean(), action: Str, source: NStr, derived: Type.Boolean() }),
  references: strict({
    nvd_url: Str,
    cve_org_url: Str,
    breachspider_url: Type.Optional(Str),
    vendor_advisories: Type.Array(Link),
    cisa_ics_advisories: Type.Array(strict({ advisory_id: Str, url: NStr, title: Str, published: NStr })),
    other_references: Type.Array(Link, { maxItems: 25 }),
    other_references_total: Int,
  }),
});

const FixCounts = strict({ total: Int, confirmed: Int, known_exploited: Int, exploit_available: Int });

export const V2FixGroup = strict({
  fix: Str,
  fix_type: Type.Union([Type.Literal('kb'), Type.Literal('esu'), Type.Literal('none')]),
  kb: NStr,
  kbs_covered: Type.Array(Str),
  cve_ids: Type.Array(Str),
  counts: FixCounts,
  highest_score: NNum,
  group_rank: Type.Integer({ minimum: 1 }),
});

const hostProps = {
  asset_id: Str,
  microsoft_product: NStr,
  candidate_products: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
  patch_resolved: Type.Boolean(),
  end_of_life: Type.Boolean(),
  map_note: NStr,
  labels: Type.Array(Str),
  counts: strict({ confirmed_open: Int, cleared: Int, needs_review: Int }),
  fix_groups: Type.Array(V2FixGroup),
  warnings: Type.Array(Str),
  cves: Type.Array(V2Cve),
  cves_page: Type.Optional(
    strict({
      page: Type.Integer({ minimum: 1 }),
      page_size: Type.Integer({ minimum: 1 }),
      total: Int,
      total_unfiltered: Int,
      has_more: Type.Boolean(),
    }),
  ),
};

export const V2Host = strict(hostProps);

const HostError = strict({ code: Str, field: Str, message: Str });

export const V2Rejected = strict({
  asset_id: NStr,
  index: Int,
  errors: Type.Array(HostError),
  retryable: Type.Literal(false),
  retry_after_seconds: Type.Null(),
  action: Type.Literal('fix_input'),
});

export const V2SoftwareRejected = strict({ asset_id: NStr, index: Int, errors: Type.Array(HostError) });

export const V2FixSummary = strict({
  rank: Type.Integer({ minimum: 1 }),
  fix: Str,
  product: NStr,
  asset_ids: Type.Array(Str),
  counts: FixCounts,
  highest_score: NNum,
});

const filterProps = {
  include_cleared: Type.Boolean(),
  confirmed_only: Type.Boolean(),
  known_exploited_only: Type.Boolean(),
  fix_available_only: Type.Boolean(),
  cve_page: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  cve_page_size: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
};

const SortSchema = Type.Union(SORTS.map((s) => Type.Literal(s)));

const v2Meta = (filters: Record<string, TSchema>) =>
  strict({
    api_version: Type.Literal('2'),
    microsoft_data_as_of: NStr,
    took_ms: Int,
    sort: SortSchema,
    filters: strict(filters),
  });

/** 200 of POST /api/v2/assets/correlate and /correlate-csv (spec §2.7): written by stream.ts, field for field. */
export const V2CorrelateResponse = strict({
  api: ApiBlock,
  data: strict({
    assets: Type.Array(V2Host, { maxItems: 200 }),
    rejected: Type.Array(V2Rejected),
    software_stored: Int,
    software_rejected: Type.Array(V2SoftwareRejected),
    fix_summary: Type.Array(V2FixSummary, { maxItems: 10 }),
  }),
  meta: v2Meta(filterProps),
});

/** 200 of GET /api/v2/assets/results: stored hosts, paged. */
export const V2ResultsResponse = strict({
  api: ApiBlock,
  data: strict({
    assets: Type.Array(
      strict({
        ...hostProps,
        environment_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
        evaluated_on: Str,
      }),
    ),
    fix_summary: Type.Array(V2FixSummary, { maxItems: 10 }),
  }),
  pagination: PaginationSchema,
  meta: v2Meta({
    ...filterProps,
    environment_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
    asset_id: NStr,
  }),
});

// ---- requests (documentation and the first line of validation; per-host rules are in domain/windows/validate.ts) ----

const OptionsSchema = Type.Object(
  {
    include_cleared: Type.Optional(Type.Boolean()),
    sort: Type.Optional(SortSchema),
    confirmed_only: Type.Optional(Type.Boolean()),
    known_exploited_only: Type.Optional(Type.Boolean()),
    fix_available_only: Type.Optional(Type.Boolean()),
    cve_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CVE_PAGE })),
    cve_page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { description: `Options (spec §4.2): ${OPTION_NAMES.join(', ')}` },
);

/**
 * Body of POST /api/v2/assets/correlate, validated in two stages around the limits (ADR 0106; correlate-input.ts):
 * the shape (extra top-level fields, windows_hosts an array), then the host count and the rate limit, then the rest,
 * in the spec's wording; each host is validated alone (a refused host never refuses the call).
 */
export const V2CorrelateBody = Type.Object(
  {
    environment_id: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1 })),
    windows_hosts: Type.Array(
      Type.Object(
        {
          asset_id: Str,
          os_product: Str,
          edition_id: Str,
          display_version: Type.Optional(Str),
          os_build: Str,
          architecture: Str,
          installation_type: Type.Optional(Str),
          installed_kbs: Type.Optional(Type.Array(Str)),
          kb_source: Type.Optional(Str),
          esu_enrolled: Type.Optional(Str),
          collected_at: Str,
        },
        { description: 'Host record (spec §2.6)' },
      ),
      { maxItems: 200 },
    ),
    installed_software: Type.Optional(
      Type.Array(Type.Object({ asset_id: Str, name: Str, publisher: Type.Optional(Str), version: Type.Optional(Str) })),
    ),
    options: Type.Optional(OptionsSchema),
  },
  { additionalProperties: false },
);
