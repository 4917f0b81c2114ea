// Success envelope (spec §2.1). Every route returns ok()/collection(); the error handler builds the error form.
import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { pageOf, type Tier } from '../domain/tiers.ts';
import { isRecord } from '../domain/is-record.ts';

export function apiVersionFor(url: string): string {
  return url.startsWith('/api/v2/') ? '2.0.0' : '1.0.0';
}

export function apiBlock(req: FastifyRequest) {
  return {
    version: apiVersionFor(req.url),
    request_id: req.id,
    timestamp: new Date().toISOString(),
    processing_ms: Math.max(0, Math.round(performance.now() - req.startedAt)),
  };
}

export interface Pagination {
  total: number;
  page: number;
  per_page: number;
  pages: number;
  has_next: boolean;
  has_prev: boolean;
  count: number;
}

export function pagination(total: number, page: number, perPage: number, count: number): Pagination {
  const pages = perPage > 0 ? Math.ceil(total / perPage) : 0;
  return { total, page, per_page: perPage, pages, has_next: page < pages, has_prev: page > 1, count };
}

/** A list read whole, answered as one page of it (listPage) in the collection envelope (spec §2.1: `pagination`). */
export function listCollection<T>(req: FastifyRequest & { query: unknown }, rows: readonly T[]) {
  const q = isRecord(req.query) ? req.query : {};
  const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
  const one = listPage(rows, { page: num(q.page), per_page: num(q.per_page) }, req.principal?.tier ?? null);
  return collection(req, one.items, one.pagination, {});
}

/**
 * One page of a list read whole (an organization's environments, webhooks or feed tokens: short lists), as every
 * list endpoint pages (spec §2.1, §8): page 1 and 20 per page by default, the tier's cap clamping per_page.
 */
function listPage<T>(
  rows: readonly T[],
  q: { page?: number; per_page?: number },
  tier: Tier | null,
): { items: T[]; pagination: Pagination } {
  const { page, perPage, offset } = pageOf(tier, q);
  const items = rows.slice(offset, offset + perPage);
  return { items, pagination: pagination(rows.length, page, perPage, items.length) };
}

export function ok<D, M extends object>(req: FastifyRequest, data: D, meta?: M) {
  return { api: apiBlock(req), data, meta: meta ?? ({} as M) };
}

export function collection<D, M extends object, E extends object>(
  req: FastifyRequest,
  data: D[],
  page: Pagination,
  meta?: M,
  extra?: E,
) {
  return { api: apiBlock(req), data, pagination: page, meta: meta ?? ({} as M), ...(extra ?? ({} as E)) };
}

// ---- TypeBox schemas for the envelope, used in route `response` schemas and OpenAPI ----
export const ApiBlock = Type.Object({
  version: Type.String(),
  request_id: Type.String({ pattern: '^vi-req-[0-9a-f]{12}$' }),
  timestamp: Type.String({ format: 'date-time' }),
  processing_ms: Type.Integer({ minimum: 0 }),
});

export const PaginationSchema = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
  pages: Type.Integer(),
  has_next: Type.Boolean(),
  has_prev: Type.Boolean(),
  count: Type.Integer(),
});

export function Envelope<D extends TSchema, M extends TSchema>(data: D, meta: M) {
  return Type.Object({ api: ApiBlock, data, meta });
}

export function CollectionEnvelope<D extends TSchema, M extends TSchema>(
  item: D,
  meta: M,
  extra: Record<string, TSchema> = {},
) {
  return Type.Object({ api: ApiBlock, data: Type.Array(item), pagination: PaginationSchema, meta, ...extra });
}
