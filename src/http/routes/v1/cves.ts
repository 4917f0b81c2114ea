// spec §4.1 CVE endpoints (API v1): the list with every filter, the detail with conditional requests, KEV,
// vendor and protocol collections, and the two statistics endpoints. Public with optional authentication;
// partner keys may call all of them, trial keys only the detail (spec §5.8). The reads are services.cves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { ApiError } from '../../errors.ts';
import { movedPermanently } from '../../conventions.ts';
import fastJson from 'fast-json-stringify';
import { ApiBlock, apiBlock, collection, ok, pagination } from '../../envelope.ts';
import type { RouteAuth } from '../../auth.ts';
import { ICS_PROTOCOLS } from '../../../domain/cve-document.ts';
import { KEV_META, type Page, type Reader } from '../../../services/cve-reader.ts';
import {
  CveDetailResponse,
  CveIdParams,
  CveListQuery,
  CveListResponse,
  KevListResponse,
  NotModified,
  PageQuery,
  ProtocolParams,
  SlugParams,
  StatsDashboardResponse,
  StatsSummaryResponse,
  EmptyQuery,
} from '../../schemas/cves.ts';

const PUBLIC: RouteAuth = { mode: 'public', partner: true, tenant: false };
const PUBLIC_TRIAL: RouteAuth = { mode: 'public', partner: true, trial: true, tenant: false };

type ListQuery = Static<typeof CveListQuery>;

// The detail's envelope parts, serialized as the route's response serializer does (fast-json-stringify, same schemas).
const serializeApi = fastJson(ApiBlock);
const serializeMeta = fastJson(CveDetailResponse.properties.meta);
const JSON_TYPE = 'application/json; charset=utf-8';

/** Who is reading, as the services take it. */
export function readerOf(req: FastifyRequest): Reader {
  return { tier: req.principal?.tier ?? null, orgId: req.principal?.orgId ?? null };
}

function paged<T>(p: Page<T>) {
  return pagination(p.total, p.page, p.perPage, p.items.length);
}

/** Cross-field rules of §4.1 that a per-field schema cannot state. */
function checkRanges(q: ListQuery) {
  const errs: { field: string; message: string; type: string }[] = [];
  const pair = (lo: keyof ListQuery, hi: keyof ListQuery) => {
    const a = q[lo];
    const b = q[hi];
    if (
      (typeof a === 'number' && typeof b === 'number' && a > b) ||
      (typeof a === 'string' && typeof b === 'string' && a > b)
    ) {
      errs.push({
        field: `query.${String(lo)}`,
        message: `must be less than or equal to ${String(hi)}`,
        type: 'value_error.range',
      });
    }
  };
  pair('cvss_min', 'cvss_max');
  pair('bcs_min', 'bcs_max');
  pair('date_from', 'date_to');
  // Blank text names nothing: refused as such, not answered with an empty list (vendor=%20 matched no vendor).
  for (const k of ['q', 'vendor'] as const) {
    if (q[k] !== undefined && q[k].trim() === '')
      errs.push({ field: `query.${k}`, message: 'must not be blank', type: 'value_error.any_str.min_length' });
  }
  if (errs.length) throw new ApiError('VALIDATION_ERROR', { fields: errs });
}

function filtersApplied(q: ListQuery): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (k === 'page' || k === 'per_page' || (k === 'ranked' && v === false)) continue;
    out[k] = v;
  }
  return out;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
const IMF_OR_RFC850 = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|${DAY}[a-z]{0,6}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT)$`,
);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * The time of an HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms, all UTC);
 * null for any other text. Date.parse alone read "3000" or "1" as dates, and such an If-Modified-Since gave 304.
 */
export function httpDate(value: string): number | null {
  const v = value.trim();
  const t = IMF_OR_RFC850.test(v) ? Date.parse(v) : ASCTIME.test(v) ? Date.parse(`${v} GMT`) : NaN;
  return Number.isNaN(t) ? null : t;
}

/**
 * Conditional GET (RFC 9110 §13.1): If-None-Match wins over If-Modified-Since, which is ignored unless it is an
 * HTTP-date (§13.1.3).
 */
export function notModified(req: FastifyRequest, etag: string, lastModified: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return etagMatches(inm, etag);
  const ims = req.headers['if-modified-since'];
  if (ims !== undefined) {
    const t = httpDate(ims);
    // HTTP dates have second precision.
    if (t !== null) return Math.floor(lastModified.getTime() / 1000) * 1000 <= t;
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

const cves: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.cves;

  app.get(
    '/api/v1/cves',
    {
      schema: {
        tags: ['cves'],
        summary: 'Search and filter CVE summary cards (spec §4.1)',
        querystring: CveListQuery,
        response: { 200: CveListResponse },
        errors: [{ key: 'AUTH_REQUIRED', when: 'ranked=true without an API key or session (detail.parameter)' }],
      },
      config: { auth: PUBLIC },
      // A protocol name in any case, as /api/v1/cves/protocol/{name} takes it (filters_applied echoes the lower case).
      preValidation: async (req) => {
        const q = req.query as Record<string, unknown>;
        if (typeof q.protocol === 'string') q.protocol = q.protocol.toLowerCase();
      },
    },
    async (req) => {
      const q = req.query;
      checkRanges(q);
      if (q.ranked && !req.principal) {
        throw new ApiError('AUTH_REQUIRED', {
          message: 'ranked=true needs an API key or a session',
          detail: { error: 'auth_required', parameter: 'ranked' },
        });
      }
      const page = await svc.list(readerOf(req), q);
      return collection(
        req,
        page.items,
        paged(page),
        { corpus_size: page.corpus },
        { filters_applied: filtersApplied(q) },
      );
    },
  );

  app.get(
    '/api/v1/cves/kev',
    {
      schema: {
        tags: ['cves'],
        summary: 'CVEs in the KEV catalog, newest first (reduced cards)',
        querystring: PageQuery,
        response: { 200: KevListResponse },
      },
      config: { auth: PUBLIC },
    },
    async (req) => {
      const page = await svc.kev(readerOf(req), req.query);
      return collection(
        req,
        page.items,
        paged(page),
        { ...KEV_META, corpus_size: page.corpus },
        { filters_applied: { kev_only: true, source: KEV_META.source } },
      );
    },
  );

  app.get(
    '/api/v1/cves/vendor/:slug',
    {
      schema: {
        tags: ['cves'],
        summary: 'CVEs naming one catalog vendor (slug from GET /api/v1/catalog/vendors), newest first',
        params: SlugParams,
        querystring: PageQuery,
        response: {
          200: CveListResponse,
          301: Type.Null({
            description:
              'A slug the catalog renamed ("sapse" became "sap"): Location gives the same list under the current slug',
          }),
        },
      },
      config: { auth: PUBLIC },
    },
    async (req, reply) => {
      const { slug } = req.params;
      const r = await svc.byVendor(readerOf(req), slug, req.query);
      if (!r)
        throw new ApiError('NOT_FOUND', {
          message: `Vendor not found: ${slug}`,
          detail: { resource: 'vendor', identifier: slug },
        });
      if ('movedTo' in r) return movedPermanently(req, reply, `/api/v1/cves/vendor/${r.movedTo}`);
      return collection(
        req,
        r.page.items,
        paged(r.page),
        { corpus_size: r.page.corpus },
        { filters_applied: { vendor: r.vendor.slug, vendor_name: r.vendor.name } },
      );
    },
  );

  app.get(
    '/api/v1/cves/protocol/:name',
    {
      schema: {
        tags: ['cves'],
        summary: `CVEs of one ICS protocol (${ICS_PROTOCOLS.join(', ')}), newest first`,
        params: ProtocolParams,
        querystring: PageQuery,
        response: { 200: CveListResponse },
      },
      config: { auth: PUBLIC },
    },
    async (req) => {
      const { name } = req.params;
      const r = await svc.byProtocol(readerOf(req), name, req.query);
      if (!r) {
        throw new ApiError('NOT_FOUND', {
          message: `Unknown protocol: ${name}`,
          detail: { resource: 'protocol', identifier: name, accepted: [...ICS_PROTOCOLS] },
        });
      }
      return collection(
        req,
        r.page.items,
        paged(r.page),
        { corpus_size: r.page.corpus },
        { filters_applied: { protocol: r.protocol } },
      );
    },
  );

  app.get(
    '/api/v1/cves/stats/summary',
    {
      schema: {
        tags: ['cves'],
        summary: 'Corpus totals: severity, KEV, exploit maturity, ICS relevance, patch status',
        querystring: EmptyQuery,
        response: { 200: StatsSummaryResponse },
      },
      config: { auth: PUBLIC },
    },
    async (req) => {
      const r = await svc.statsSummary();
      return ok(req, r.data, r.meta);
    },
  );

  app.get(
    '/api/v1/cves/stats/dashboard',
    {
      schema: {
        tags: ['cves'],
        summary: 'Dashboard statistics: totals, top vendors and protocols, CVEs per month, EPSS distribution',
        querystring: EmptyQuery,
        response: { 200: StatsDashboardResponse },
      },
      config: { auth: PUBLIC },
    },
    async (req) => {
      const r = await svc.statsDashboard();
      return ok(req, r.data, r.meta);
    },
  );

  app.get(
    '/api/v1/cves/:cve_id',
    {
      schema: {
        tags: ['cves'],
        summary: 'Full CVE detail (spec §2.3); ETag/Last-Modified with 304 on conditional requests',
        params: CveIdParams,
        querystring: EmptyQuery,
        response: { 200: CveDetailResponse, 304: NotModified },
      },
      config: { auth: PUBLIC_TRIAL },
      // A collection's name without its parameter ("/api/v1/cves/vendor/": the trailing slash is ignored, so the path
      // reaches this route with the id "vendor") is an unknown path that says what goes after it, not a 422 about the
      // CVE id's pattern.
      preValidation: (req, _reply, done) => {
        const id = (req.params as { cve_id?: string }).cve_id ?? '';
        const next = COLLECTION_PARAMS[id.toLowerCase()];
        if (next)
          return done(
            new ApiError('NOT_FOUND', {
              message: `No route ${req.method} /api/v1/cves/${id}: ${next}`,
              detail: { resource: 'route', identifier: `/api/v1/cves/${id}` },
            }),
          );
        done();
      },
    },
    async (req, reply) => {
      const d = await svc.detail(readerOf(req), req.params.cve_id);
      if (!d)
        throw new ApiError('NOT_FOUND', {
          message: 'CVE not found.',
          detail: { resource: 'CVE', identifier: req.params.cve_id.toUpperCase() },
        });
      setValidators(reply, d.etag, d.lastModified);
      if (notModified(req, d.etag, d.lastModified)) return reply.code(304).send();
      const data = d.data();
      if ('view' in data) return ok(req, data.view, d.meta);
      // The stored answer (lib/cve-answer.ts) is already `data` serialized by this route's schema: the envelope is
      // joined around it, each part by its own schema's serializer, as the route's serializer would write the whole.
      return (reply as FastifyReply)
        .type(JSON_TYPE)
        .send(`{"api":${serializeApi(apiBlock(req))},"data":${data.json},"meta":${serializeMeta(d.meta)}}`);
    },
  );
};

/** The CVE collections that take a path parameter, and what goes after their name. */
const COLLECTION_PARAMS: Record<string, string> = {
  vendor: 'a vendor slug goes after it (/api/v1/cves/vendor/{slug}; the slugs are listed by /api/v1/catalog/vendors)',
  protocol: `a protocol name goes after it (/api/v1/cves/protocol/{name}: ${ICS_PROTOCOLS.join(', ')})`,
  stats: 'use /api/v1/cves/stats/summary or /api/v1/cves/stats/dashboard',
};

export default cves;
