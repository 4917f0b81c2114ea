// spec §4.3 Health. Ping answers without touching the database.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';

const health: FastifyPluginAsync = async (app) => {
  app.get('/api/v1/health/ping', {
    schema: {
      tags: ['health'],
      summary: 'Liveness check (no database query)',
      querystring: Type.Object({}),
      response: { 200: Type.Object({ ping: Type.Literal('pong') }) },
    },
    config: { auth: { mode: 'none' } },
  }, async () => ({ ping: 'pong' as const }));
};
export default health;
