// TypeBox schemas of the CVE endpoints (spec §2.2–§2.5, §4.1). Request schemas validate; response schemas
// serialize (a whitelist: a field not listed here never leaves the service) and feed OpenAPI.
import { Type } from 'typebox';
import { ICS_PROTOCOLS } from '../../domain/cve-document.ts';
import { PATCH_FILTER_VALUES } from '../../domain/cve-view.ts';
import { CollectionEnvelope, Envelope } from '../envelope.ts';
import { CVE_ID_PATTERN_ANY_CASE } from '../../domain/cve-id.ts';
import { CveDetail } from '../../lib/cve-detail-schema.ts';

// Nullable scalars as `type: [x, 'null']`, not anyOf: fast-json-stringify serializes a type list directly but
// runs a schema validation per value to pick an anyOf branch (measured: several times slower on the detail).
const Str = Type.String();
const NStr = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const NNum = Type.Unsafe<number | null>({ type: ['number', 'null'] });

// ---- requests ----

/** One severity, or several separated by commas (e.g. CRITICAL,HIGH); upper case as published. */
export const SEVERITY_PATTERN = '^(CRITICAL|HIGH|MEDIUM|LOW)(,(CRITICAL|HIGH|MEDIUM|LOW))*$';

const Score = (what: string) => Type.Number({ minimum: 0, maximum: 10, description: `${what}, 0 to 10` });
// Year 0000 is a valid `date` format but no date PostgreSQL (or the proleptic Gregorian calendar) has: refused here.
const DateParam = (what: string) =>
  Type.String({
    format: 'date',
    pattern: '^(?!0000)',
    description: `${what} (YYYY-MM-DD, UTC, inclusive; years 0001-9999)`,
  });

export const PageParams = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      default: 1,
      description: 'Page number (no depth cap; pages past the last are empty)',
    }),
  ),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 20,
      description:
        'Results per page, at most 100. Anonymous and Free callers are clamped to 10 (pagination.per_page shows the value used).',
    }),
  ),
};

const Enum = (values: readonly string[], description: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], description });

export const CveListQuery = Type.Object(
  {
    ...PageParams,
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Full-text search over CVE id, vendor, product, title and description; ranked by relevance, an exact CVE id first',
      }),
    ),
    severity: Type.Optional(
      Type.String({
        pattern: SEVERITY_PATTERN,
        description:
          'Card severity (CVSS, else vendor rating): CRITICAL, HIGH, MEDIUM or LOW; several comma-separated. Not-scored CVEs never match',
      }),
    ),
    cvss_min: Type.Optional(Score('Lowest CVSS score')),
    cvss_max: Type.Optional(Score('Highest CVSS score')),
    bcs_min: Type.Optional(Score('Lowest criticality score (BCS)')),
    bcs_max: Type.Optional(Score('Highest criticality score (BCS)')),
    kev: Type.Optional(Type.Boolean({ description: 'true: KEV entries only; false: entries not in KEV' })),
    vendor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Vendor: catalog slug, display name or alias (case-insensitive)',
      }),
    ),
    protocol: Type.Optional(Enum(ICS_PROTOCOLS, 'ICS protocol, in any case (Modbus = modbus)')),
    unpatched: Type.Optional(
      Type.Boolean({
        description: 'true: only CVEs without a known patch (patch.patch_available false); false: only patched',
      }),
    ),
    has_exploit: Type.Optional(
      Type.Boolean({
        description: 'true: only CVEs with a public exploit or proof of concept; false: only CVEs with neither',
      }),
    ),
    patch_status: Type.Optional(
      Enum(
        PATCH_FILTER_VALUES,
        'patched, unpatched (unknown or varies_by_product), partial (varies_by_product), unknown',
      ),
    ),
    date_from: Type.Optional(DateParam('Published on or after')),
    date_to: Type.Optional(DateParam('Published on or before')),
    sort_by: Type.Optional(Enum(['date', 'cvss', 'epss'], 'Newest first (default), highest CVSS, or highest EPSS')),
    ranked: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Watched vendors/protocols of your organization first, then by BCS; requires authentication',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PageQuery = Type.Object({ ...PageParams }, { additionalProperties: false });

export const VendorCatalogQuery = Type.Object(
  {
    ...PageParams,
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Substring of the slug, name or an alias' }),
    ),
  },
  { additionalProperties: false },
);

export const CveIdParams = Type.Object({
  cve_id: Type.String({ pattern: CVE_ID_PATTERN_ANY_CASE, description: 'CVE-<year>-<number>' }),
});
export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200 }) });
export const ProtocolParams = Type.Object({ name: Type.String({ maxLength: 100 }) });
export { NoQuery as EmptyQuery } from './common.ts';

/** The empty body of a 304 answer to a conditional request. */
export const NotModified = Type.Unsafe<void>({
  type: 'null',
  description: 'Not modified (ETag / Last-Modified matched); no body',
});

// ---- responses ----

const Links = Type.Object({ self: Str, html: Str });

/** Summary-card severity (docs/enrichment.md "Card severity"). */
const CardSeverity = Type.Unsafe<'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW' | null>({
  type: ['string', 'null'],
  enum: ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', null],
  description:
    'The CVSS severity of scoring.cvss (NVD, else the CISA ICS advisory, else MSRC); when no source gives a CVSS score, the vendor rating (MSRC Critical → CRITICAL, Important → HIGH, Moderate → MEDIUM, Low → LOW); null when the CVE is not scored (e.g. a KEV-only CVE without CVSS). Never derived from bcs_score.',
});

export const CveCard = Type.Object({
  cve_id: Str,
  bsid: Str,
  title: Str,
  severity: CardSeverity,
  cvss_score: NNum,
  bcs_score: Type.Number(),
  epss_score: NNum,
  epss_percentile: NNum,
  epss_top_10_pct: Type.Boolean(),
  kev_flagged: Type.Boolean(),
  exploit_maturity: Str,
  poc_available: Type.Boolean(),
  has_public_exploit: Type.Boolean(),
  patch_status: Str,
  ics_relevant: Type.Boolean(),
  primary_vendor: NStr,
  primary_product: NStr,
  vendor_count: Type.Integer(),
  published_at: NStr,
  _links: Links,
});

export const KevCard = Type.Object({
  cve_id: Str,
  title: Str,
  severity: CardSeverity,
  cvss_score: NNum,
  kev_flagged: Type.Boolean(),
  primary_vendor: NStr,
  published_at: NStr,
});

const CorpusMeta = Type.Object({ corpus_size: Type.Integer() });
const FiltersApplied = Type.Record(Type.String(), Type.Unknown());

export const CveListResponse = CollectionEnvelope(CveCard, CorpusMeta, { filters_applied: FiltersApplied });

export const KevListResponse = CollectionEnvelope(
  KevCard,
  Type.Object({ kev_program_launched: Str, source: Str, catalog_url: Str, corpus_size: Type.Integer() }),
  { filters_applied: Type.Object({ kev_only: Type.Boolean(), source: Str }) },
);

export const VendorListResponse = CollectionEnvelope(
  Type.Object({ slug: Str, name: Str, cve_count: Type.Integer() }),
  Type.Object({}),
);

export const CveDetailResponse = Envelope(
  CveDetail,
  Type.Object({
    enrichment_version: Str,
    sage_model: Str,
    source: Str,
    capec_source: Type.Object({ catalog: Str, version: Str, mapping: Str }),
  }),
);

// ---- statistics (shapes of our design; spec §4.1 leaves them open) ----

const Counts = (keys: string[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer()])), { description });

const FacetBlock = Type.Object({
  total: Type.Integer({ description: 'CVEs in the corpus' }),
  by_severity: Counts(
    ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE'],
    'Card severity (CVSS, else vendor rating); NONE = not scored',
  ),
  kev: Type.Integer({ description: 'CVEs in the KEV catalog' }),
  by_exploit_maturity: Counts(['WEAPONIZED', 'FUNCTIONAL', 'POC', 'NONE'], 'Exploit maturity'),
  with_exploit_or_poc: Type.Integer({
    description: 'CVEs with a public exploit or proof of concept (has_exploit=true)',
  }),
  ics_relevant: Type.Integer({ description: 'CVEs classified ICS-relevant' }),
  by_patch_status: Counts(['patched', 'varies_by_product', 'unknown'], 'Stored patch.status'),
});

export const StatsSummaryResponse = Envelope(
  FacetBlock,
  Type.Object({
    corpus_version: Type.Integer({ description: 'Increases with every change of the corpus' }),
    as_of: Str,
  }),
);

const Ranked = Type.Array(Type.Object({ key: Str, name: NStr, cve_count: Type.Integer() }));

export const StatsDashboardResponse = Envelope(
  Type.Object({
    totals: FacetBlock,
    top_vendors: Ranked,
    top_protocols: Ranked,
    published_per_month: Type.Array(Type.Object({ month: Str, count: Type.Integer() }), {
      description: 'CVEs per published month (YYYY-MM), last 24 months with data, oldest first',
    }),
    epss_distribution: Type.Array(Type.Object({ bucket: Str, count: Type.Integer() }), {
      description: 'EPSS score in tenths (0.0-0.1 … 0.9-1.0), plus "none" for CVEs without EPSS',
    }),
  }),
  Type.Object({ corpus_version: Type.Integer(), as_of: Str }),
);
