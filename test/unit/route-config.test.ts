// The hooks read a route's config through routeConfig (src/http/route-config.ts): the same object as Fastify's
// public `request.routeOptions.config`, for a matched route and for an unmatched request, read from the route
// context directly (the fast path; this fails when a Fastify release moves it, rather than falling back unseen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyContextConfig } from 'fastify';
import { directRouteConfig, routeConfig } from '../../src/http/route-config.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    marker?: string;
  }
}

test("routeConfig answers the matched route's config object, and the not-found handler's for an unmatched request", async () => {
  assert.equal(directRouteConfig, true);
  const app = Fastify();
  const seen: { direct: FastifyContextConfig; public: FastifyContextConfig }[] = [];
  app.addHook('onRequest', (req, _reply, done) => {
    seen.push({ direct: routeConfig(req), public: req.routeOptions.config });
    done();
  });
  app.get('/a', { config: { marker: 'route a' } }, async () => 'a');
  app.get('/b', { config: { marker: 'route b' } }, async () => 'b');
  await app.inject('/b');
  await app.inject('/a');
  await app.inject('/nowhere');
  await app.close();
  assert.deepEqual(
    seen.map((s) => s.direct.marker),
    ['route b', 'route a', undefined],
  );
  for (const s of seen) assert.equal(s.direct, s.public);
});
