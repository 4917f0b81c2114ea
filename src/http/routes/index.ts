// Every route module, registered in one place. One line per module.
import type { FastifyInstance } from 'fastify';
import health from './v1/health.ts';
import account from './v1/account.ts';
import cves from './v1/cves.ts';
import catalog from './v1/catalog.ts';
import cvePage from './v1/cve-page.ts';
import environments from './v1/environments.ts';
import windowsAssets from './v2/assets.ts';
import watchlist from './v1/watchlist.ts';
import changes from './v1/changes.ts';
import alerts from './v1/alerts.ts';

export async function registerRoutes(app: FastifyInstance) {
  await app.register(health);
  await app.register(account);
  await app.register(cves);
  await app.register(catalog);
  await app.register(cvePage);
  await app.register(environments);
  await app.register(windowsAssets);
  await app.register(watchlist);
  await app.register(changes);
  await app.register(alerts);
}
