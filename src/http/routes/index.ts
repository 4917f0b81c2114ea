// Every route module, registered in one place. One line per module.
import type { FastifyInstance } from 'fastify';
import health from './v1/health.ts';
import account from './v1/account.ts';
import cves from './v1/cves.ts';
import catalog from './v1/catalog.ts';
import cvePage from './v1/cve-page.ts';
import environments from './v1/environments.ts';
import windowsAssets from './v2/assets.ts';
import training from './v1/training.ts';
import accountPreferences from './v1/account-preferences.ts';
import trainingPage from './v1/training-page.ts';
import webhooks from './v1/webhooks.ts';
import authRoutes from './v1/auth.ts';
import accountManage from './v1/account-manage.ts';
import accountPages from './v1/account-pages.ts';
import assetCorrelation from './v1/asset-correlation.ts';
import watchlist from './v1/watchlist.ts';
import changes from './v1/changes.ts';
import alerts from './v1/alerts.ts';
import feeds from './v1/feeds.ts';
import triage from './v1/triage.ts';
import staticFiles from './v1/static-files.ts';
import webPages from './v1/web-pages.ts';

export async function registerRoutes(app: FastifyInstance) {
  await app.register(health);
  await app.register(account);
  await app.register(cves);
  await app.register(catalog);
  await app.register(cvePage);
  await app.register(environments);
  await app.register(windowsAssets);
  await app.register(training);
  await app.register(accountPreferences);
  await app.register(trainingPage);
  await app.register(webhooks);
  await app.register(authRoutes);
  await app.register(accountManage);
  await app.register(accountPages);
  await app.register(assetCorrelation);
  await app.register(watchlist);
  await app.register(changes);
  await app.register(alerts);
  await app.register(feeds);
  await app.register(triage);
  await app.register(staticFiles);
  await app.register(webPages);
}
