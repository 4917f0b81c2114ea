// Every route module, registered in one place. One line per module.
import type { FastifyInstance } from 'fastify';
import health from './v1/health.ts';
import account from './v1/account.ts';

export async function registerRoutes(app: FastifyInstance) {
  await app.register(health);
  await app.register(account);
}
