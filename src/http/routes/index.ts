// Every route module, registered in one place. One line per module.
import type { FastifyInstance } from 'fastify';
import health from './v1/health.ts';

export async function registerRoutes(app: FastifyInstance) {
  await app.register(health);
}
