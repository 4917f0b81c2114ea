// spec §4.1 CVE endpoints (API v1): the list with every filter, the detail with conditional requests, KEV,
// vendor and protocol collections, and the two statistics endpoints. Public with optional authentication;
// partner keys may call all of them, trial keys only the detail (spec §5.8).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { ApiError } from '../../errors.ts';
import { collection, ok, pagination } from '../../envelope.ts';
import type { RouteAuth } from '../../auth.ts';
import { ICS_PROTOCOLS, ENRICHMENT_VERSION } from '../../../domain/cve-document.ts';
import { perPageCap } from '../../../domain/tiers.ts';
import { capecSourceFor } from '../../../domain/capec.ts';
import {
  cveHtmlUrl, cvePath, detailView, epssBucketLabel, patchStatusesFor, sageVisible, type PatchFilterValue,
} from '../../../domain/cve-view.ts';
import {
  corpusChangedAt, corpusVersion, facetTotals, getVendor, statCounts, topFacets,
  type CardRow, type CveFilter, type ListOrder, type SortBy,
} from '../../../store/cve-queries.ts';
import { createCveReader, type CveReader } from '../../../store/cve-reader.ts';
import {
  CveDetailResponse, CveIdParams, CveListQuery, CveListResponse, KevListResponse, PageQuery, ProtocolParams,
  SlugParams, StatsDashboardResponse, StatsSummaryResponse, EmptyQuery,
} from '../../schemas/cves.ts';

const PUBLIC: RouteAuth = { mode: 'public', partner: true };
const PUBLIC_TRIAL: RouteAuth = { mode: 'public', partner: true, trial: true };

/** meta.source of the detail (spec §2.3). */
export const DETAIL_SOURCE = 'vulnintel-enriched';

export const KEV_META = {
  kev_program_launched: '2021-11-03',
  source: 'CISA Known Exploited Vulnerabilities catalog',
  catalog_url: 'https://www.cisa.gov/known-exploited-vulnerabilities-catalog',
};

type ListQuery = Static<typeof CveListQuery>;

function pageArgs(req: FastifyRequest, q: { page?: number; per_page?: number }) {
  const page = q.page ?? 1;
  // Over the tier cap is clamped, not refused: pagination.per_page reports the size actually used.
  const perPage = Math.min(q.per_page ?? 20, perPageCap(req.principal?.tier ?? null));
  return { page, perPage, offset: (page - 1) * perPage };
}

function card(publicUrl: string, r: CardRow) {
  return { ...r, _links: { self: cvePath(r.cve_id), html: cveHtmlUrl(publicUrl, r.cve_id) } };
}

/** Cross-field rules of §4.1 that a per-field schema cannot state. */
function checkRanges(q: ListQuery) {
  const errs: { field: string; message: string; type: string }[] = [];
  const pair = (lo: keyof ListQuery, hi: keyof ListQuery) => {
    const a = q[lo];
    const b = q[hi];
    if (a !== undefined && b !== undefined && (a as number | string) > (b as number | string)) {
      errs.push({ field: `query.${String(lo)}`, message: `must be less than or equal to ${String(hi)}`, type: 'value_error.range' });
    }
  };
  pair('cvss_min', 'cvss_max');
  pair('bcs_min', 'bcs_max');
  pair('date_from', 'date_to');
  if (q.q !== undefined && q.q.trim() === '') errs.push({ field: 'query.q', message: 'must not be blank', type: 'value_error.any_str.min_length' });
  if (errs.length) throw new ApiError('VALIDATION_ERROR', { fields: errs });
}

async function toFilter(reader: CveReader, q: ListQuery): Promise<CveFilter> {
  const f: CveFilter = {};
  if (q.q !== undefined) f.q = q.q.trim();
  if (q.severity !== undefined) f.severities = [...new Set(q.severity.split(','))].sort();
  if (q.cvss_min !== undefined) f.cvssMin = q.cvss_min;
  if (q.cvss_max !== undefined) f.cvssMax = q.cvss_max;
  if (q.bcs_min !== undefined) f.bcsMin = q.bcs_min;
  if (q.bcs_max !== undefined) f.bcsMax = q.bcs_max;
  if (q.kev !== undefined) f.kev = q.kev;
  if (q.vendor !== undefined) f.vendorSlugs = await reader.resolveVendor(q.vendor);
  if (q.protocol !== undefined) f.protocol = q.protocol;
  if (q.has_exploit !== undefined) f.hasExploit = q.has_exploit;
  const ps = patchStatusesFor(q.patch_status as PatchFilterValue | undefined, q.unpatched);
  if (ps !== undefined) f.patchStatuses = ps;
  if (q.date_from !== undefined) f.dateFrom = q.date_from;
  if (q.date_to !== undefined) f.dateTo = q.date_to;
  return f;
}

function filtersApplied(q: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (k === 'page' || k === 'per_page' || (k === 'ranked' && v === false)) continue;
    out[k] = v;
  }
  return out;
}

async function cardCollection(
  req: FastifyRequest, reader: CveReader, f: CveFilter, o: ListOrder, q: { page?: number; per_page?: number },
  applied: Record<string, unknown>,
) {
  const { page, perPage, offset } = pageArgs(req, q);
  const { total, corpus, rows } = await reader.list(f, o, perPage, offset);
  const pub = req.server.deps.config.publicUrl;
  return collection(req, rows.map((r) => card(pub, r)), pagination(total, page, perPage, rows.length),
    { corpus_size: corpus }, { filters_applied: applied });
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

/** Conditional GET (RFC 9110 §13.1): If-None-Match wins over If-Modified-Since. */
export function notModified(req: FastifyRequest, etag: string, lastModified: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return etagMatches(inm, etag);
  const ims = req.headers['if-modified-since'];
  if (ims !== undefined) {
    const t = Date.parse(ims);
    // HTTP dates have second precision.
    if (!Number.isNaN(t)) return Math.floor(lastModified.getTime() / 1000) * 1000 <= t;
  }
  return false;
}

function setValidators(reply: FastifyReply, etag: string, lastModified: Date) {
  reply.header('ETag', etag);
  reply.header('Last-Modified', lastModified.toUTCString());
  // The body depends on the caller's tier (sage), so shared caches must key on the credentials.
  reply.header('Vary', 'Authorization, Cookie');
  reply.header('Cache-Control', 'private, no-cache');
}

const cves: FastifyPluginAsync = async (app) => {
  const reader = createCveReader(app.deps.store, {
    maxEntries: app.deps.config.cveCacheEntries,
    onError: (err) => app.log.warn({ err: err.message }, 'CVE cache listener down; cache disabled until it reconnects'),
  });
  app.addHook('onClose', async () => reader.close());

  app.get('/api/v1/cves', {
    schema: {
      tags: ['cves'], summary: 'Search and filter CVE summary cards (spec §4.1)',
      querystring: CveListQuery, response: { 200: CveListResponse },
    },
    config: { auth: PUBLIC },
  }, async (req) => {
    const q = req.query as ListQuery;
    checkRanges(q);
    if (q.ranked && !req.principal) {
      throw new ApiError('AUTH_REQUIRED', { message: 'ranked=true needs an API key or a session', detail: { error: 'auth_required', parameter: 'ranked' } });
    }
    const f = await toFilter(reader, q);
    const o: ListOrder = { sortBy: q.sort_by as SortBy | undefined };
    if (q.ranked && req.principal) o.rankedForOrg = req.principal.orgId;
    return cardCollection(req, reader, f, o, q, filtersApplied(q as Record<string, unknown>));
  });

  app.get('/api/v1/cves/kev', {
    schema: {
      tags: ['cves'], summary: 'CVEs in the KEV catalog, newest first (reduced cards)',
      querystring: PageQuery, response: { 200: KevListResponse },
    },
    config: { auth: PUBLIC },
  }, async (req) => {
    const q = req.query as Static<typeof PageQuery>;
    const { page, perPage, offset } = pageArgs(req, q);
    const { total, corpus, rows } = await reader.list({ kev: true }, { sortBy: 'date' }, perPage, offset);
    const data = rows.map((r) => ({
      cve_id: r.cve_id, title: r.title, severity: r.severity, cvss_score: r.cvss_score, kev_flagged: r.kev_flagged,
      primary_vendor: r.primary_vendor, published_at: r.published_at,
    }));
    return collection(req, data, pagination(total, page, perPage, rows.length), { ...KEV_META, corpus_size: corpus },
      { filters_applied: { kev_only: true, source: KEV_META.source } });
  });

  app.get('/api/v1/cves/vendor/:slug', {
    schema: {
      tags: ['cves'], summary: 'CVEs naming one catalog vendor (slug from GET /api/v1/catalog/vendors), newest first',
      params: SlugParams, querystring: PageQuery, response: { 200: CveListResponse },
    },
    config: { auth: PUBLIC },
  }, async (req) => {
    const { slug } = req.params as Static<typeof SlugParams>;
    const v = await getVendor(app.deps.store.db, slug);
    if (!v) throw new ApiError('NOT_FOUND', { message: `Vendor not found: ${slug}`, detail: { resource: 'vendor', identifier: slug } });
    return cardCollection(req, reader, { vendorSlugs: [v.slug] }, {}, req.query as Static<typeof PageQuery>,
      { vendor: v.slug, vendor_name: v.name });
  });

  app.get('/api/v1/cves/protocol/:name', {
    schema: {
      tags: ['cves'], summary: `CVEs of one ICS protocol (${ICS_PROTOCOLS.join(', ')}), newest first`,
      params: ProtocolParams, querystring: PageQuery, response: { 200: CveListResponse },
    },
    config: { auth: PUBLIC },
  }, async (req) => {
    const { name } = req.params as Static<typeof ProtocolParams>;
    const p = name.toLowerCase();
    if (!(ICS_PROTOCOLS as readonly string[]).includes(p)) {
      throw new ApiError('NOT_FOUND', {
        message: `Unknown protocol: ${name}`,
        detail: { resource: 'protocol', identifier: name, accepted: [...ICS_PROTOCOLS] },
      });
    }
    return cardCollection(req, reader, { protocol: p }, {}, req.query as Static<typeof PageQuery>, { protocol: p });
  });

  app.get('/api/v1/cves/stats/summary', {
    schema: {
      tags: ['cves'], summary: 'Corpus totals: severity, KEV, exploit maturity, ICS relevance, patch status',
      querystring: EmptyQuery, response: { 200: StatsSummaryResponse },
    },
    config: { auth: PUBLIC },
  }, async (req) => {
    const db = app.deps.store.db;
    const [totals, version, at] = await Promise.all([facetTotals(db), corpusVersion(db), corpusChangedAt(db)]);
    return ok(req, totals, { corpus_version: version, as_of: at.toISOString() });
  });

  app.get('/api/v1/cves/stats/dashboard', {
    schema: {
      tags: ['cves'], summary: 'Dashboard statistics: totals, top vendors and protocols, CVEs per month, EPSS distribution',
      querystring: EmptyQuery, response: { 200: StatsDashboardResponse },
    },
    config: { auth: PUBLIC },
  }, async (req) => {
    const db = app.deps.store.db;
    const [totals, vendors, protocols, months, epss, version, at] = await Promise.all([
      facetTotals(db), topFacets(db, 'vendor', 10), topFacets(db, 'protocol', ICS_PROTOCOLS.length),
      statCounts(db, 'month'), statCounts(db, 'epss_bucket'), corpusVersion(db), corpusChangedAt(db),
    ]);
    return ok(req, {
      totals,
      top_vendors: vendors.map((v) => ({ key: v.key, name: v.name, cve_count: v.n })),
      top_protocols: protocols.map((v) => ({ key: v.key, name: v.key, cve_count: v.n })),
      published_per_month: months.filter((m) => m.key !== '').slice(-24).map((m) => ({ month: m.key, count: m.n })),
      epss_distribution: epss.map((b) => ({ bucket: epssBucketLabel(b.key), count: b.n })),
    }, { corpus_version: version, as_of: at.toISOString() });
  });

  app.get('/api/v1/cves/:cve_id', {
    schema: {
      tags: ['cves'], summary: 'Full CVE detail (spec §2.3); ETag/Last-Modified with 304 on conditional requests',
      params: CveIdParams, querystring: EmptyQuery,
      response: { 200: CveDetailResponse, 304: Type.Null({ description: 'Not modified (ETag / Last-Modified matched)' }) },
    },
    config: { auth: PUBLIC_TRIAL },
  }, async (req, reply) => {
    const id = (req.params as Static<typeof CveIdParams>).cve_id.toUpperCase();
    const [row, capec] = await Promise.all([reader.detail(id), reader.capecVersion()]);
    if (!row) throw new ApiError('NOT_FOUND', { message: 'CVE not found.', detail: { resource: 'CVE', identifier: id } });
    const full = sageVisible(req.principal?.tier ?? null);
    const etag = `"${row.doc_hash.slice(0, 24)}-${full ? 'f' : 't'}"`;
    setValidators(reply, etag, row.enriched_at);
    if (notModified(req, etag, row.enriched_at)) return reply.code(304).send();
    return ok(req, detailView(row.doc, { publicUrl: app.deps.config.publicUrl, sageFull: full }), {
      enrichment_version: ENRICHMENT_VERSION,
      sage_model: row.doc.sage.model,
      source: DETAIL_SOURCE,
      capec_source: capecSourceFor(capec),
    });
  });
};
export default cves;
