// Test-only routes, added through buildApp's testRoutes hook (never in production): they raise each kind of
// failure so the mapping into the spec's error envelope is tested over HTTP.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sql } from '../../src/store/kysely.ts';
import { ApiError, ERRORS, type ErrorKey } from '../../src/http/errors.ts';
import { ok } from '../../src/http/envelope.ts';
import { withTx } from '../../src/store/db.ts';
import type { RouteAuth } from '../../src/http/auth.ts';

export const DYNAMIC_RETRY = 17;

export function faultRoutes(app: FastifyInstance) {
  app.get(
    '/api/v1/__test/error/:key',
    {
      schema: { hide: true, params: Type.Object({ key: Type.String() }), querystring: Type.Object({}) },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req) => {
      const key = (req.params as { key: string }).key;
      if (!(key in ERRORS)) throw new Error('no such catalogue key');
      throw new ApiError(key as ErrorKey, { retryAfterSeconds: DYNAMIC_RETRY });
    },
  );
  const body = {
    schema: {
      hide: true,
      body: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
      querystring: Type.Object({}),
    },
    config: { auth: { mode: 'none' as const, tenant: false as const } },
  };
  app.post('/api/v1/__test/echo', body, async (req) => ok(req, req.body));
  app.post('/api/v2/__test/echo', body, async (req) => ok(req, req.body));
  app.get(
    '/api/v1/__test/query',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          page: Type.Optional(Type.Integer({ minimum: 1 })),
          x: Type.Optional(Type.Number()),
        }),
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req) => ok(req, req.query),
  );
  app.get(
    '/api/v1/__test/sleep',
    { schema: { hide: true, querystring: Type.Object({}) }, config: { auth: { mode: 'none', tenant: false } } },
    async (req) => {
      await withTx(app.deps.store.db, async (trx) => {
        await sql`SET LOCAL statement_timeout = '100ms'`.execute(trx);
        await sql`SELECT pg_sleep(5) /* vi-test-sleep */`.execute(trx);
      });
      return ok(req, {});
    },
  );
  // A query that takes a moment (the statement timeout is not reached): for faults that strike mid-query.
  app.get(
    '/api/v1/__test/pause',
    { schema: { hide: true, querystring: Type.Object({}) }, config: { auth: { mode: 'none', tenant: false } } },
    async (req) => {
      const r = await sql<{ n: number }>`SELECT 1 AS n FROM pg_sleep(0.4) /* vi-test-pause */`.execute(
        app.deps.store.db,
      );
      return ok(req, { n: r.rows[0].n });
    },
  );
  app.get(
    '/api/v1/__test/boom',
    { schema: { hide: true, querystring: Type.Object({}) }, config: { auth: { mode: 'none', tenant: false } } },
    async () => {
      throw new Error('secret internals: SELECT password FROM users WHERE id = 1');
    },
  );
}

/** One route per guard shape, for the auth matrix: reads are GET, writes POST (a write needs admin + write). */
export const GUARDED: Record<string, { method: 'GET' | 'POST'; auth: RouteAuth }> = {
  read: { method: 'GET', auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: false } },
  write: { method: 'POST', auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: false } },
  partner: {
    method: 'GET',
    auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', partner: true, tenant: false },
  },
  trial: { method: 'POST', auth: { mode: 'key', role: 'admin', scope: 'write', trial: true, tenant: false } },
  key_only: { method: 'GET', auth: { mode: 'key', role: 'viewer', tenant: false } },
  session_only: { method: 'GET', auth: { mode: 'session', role: 'viewer', tenant: false } },
  session_write: { method: 'POST', auth: { mode: 'session', role: 'admin', scope: 'write', tenant: false } },
};

export function guardRoutes(app: FastifyInstance) {
  for (const [name, { method, auth }] of Object.entries(GUARDED)) {
    app.route({
      method,
      url: `/api/v1/__test/guard/${name}`,
      schema: { hide: true, querystring: Type.Object({}) },
      config: { auth },
      handler: async (req) =>
        ok(req, {
          org_id: req.principal?.orgId ?? null,
          via: req.principal?.via ?? null,
          kind: req.principal?.kind ?? null,
        }),
    });
  }
  // req.caller read where the policy lets anonymous callers through: the caller when one signed in, else a 401.
  app.get(
    '/api/v1/__test/caller',
    { schema: { hide: true, querystring: Type.Object({}) }, config: { auth: { mode: 'public', tenant: false } } },
    async (req) => ok(req, { org_id: req.caller.orgId, member_id: req.caller.memberId }),
  );
}
