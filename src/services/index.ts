// The business operations, built once in buildApp and decorated onto the app as `app.services`. Routes call
// them with plain data (who is asking, validated input) and wrap the result in the envelope; services never
// see a request or a reply, and own any state (caches, listeners) that outlives one request.
// Where a new capability goes: docs/architecture.md.
import type { Clock } from '../lib/clock.ts';
import type { Store } from '../store/db.ts';
import type { Config } from '../config.ts';
import { createCveReaderService, type CveReaderService } from './cve-reader.ts';
import { createIdentityService, type IdentityService } from './identity.ts';
import { createEnvironmentService, type EnvironmentService } from './environments.ts';
import { createWindowsCorrelation, type WindowsCorrelation } from './windows-correlation.ts';
import { createTrainingService, type TrainingService } from './training.ts';
import { createAccountPreferences, type AccountPreferences } from './account-preferences.ts';
import { createWebhookService, type WebhookService } from './webhooks.ts';
import { createAccountsService, type AccountsService } from './accounts.ts';
import { createMailer, type Mailer } from './mailer.ts';
import { createAssetCorrelation, type AssetCorrelation } from './asset-correlation.ts';
import { createWatchlistService, type WatchlistService } from './watchlists.ts';
import { createFeedService, type FeedService } from './feeds.ts';
import { createChangeService, type ChangeService } from './changes.ts';
import { createAlertService, type AlertService } from './alerts.ts';
import { createTriageService, type TriageService } from './triage.ts';
import { environmentStamp } from '../store/asset-correlations.ts';
import { createOverviewService, type OverviewService } from './overview.ts';
import { healthFacts, type HealthFacts } from '../store/health.ts';
import { ReplicaRouter } from '../store/replicas.ts';
import { createVexService, type VexService } from './vex.ts';
import { createExposureHistory, type ExposureHistory } from './exposure-history.ts';
import { createPlantReports, type PlantReports } from './plant-reports.ts';

export interface ServiceDeps {
  config: Readonly<Config>;
  store: Store;
  clock: Clock;
  /** Where services report degraded states they recover from (e.g. the cache listener down). */
  warn: (msg: string, err: Error) => void;
  /** Operational notes (the sign-in link when no SMTP is configured). */
  info?: (obj: Record<string, unknown>, msg: string) => void;
}

export interface Services {
  cves: CveReaderService;
  identity: IdentityService;
  environments: EnvironmentService;
  /** Windows correlation (v2): validation, evaluation against Microsoft's data, storing results. */
  windows: WindowsCorrelation;
  /** Training modules (loaded from disk at build; a broken file stops the start) and members' progress. */
  training: TrainingService;
  /** Per-member notification preferences, and usage against the plan caps (docs/account-preferences.md). */
  accountPreferences: AccountPreferences;
  /** Webhooks: management (spec §4.6) and delivery (§6) through the tenant webhook egress policy. */
  webhooks: WebhookService;
  /** Outgoing email (SMTP_URL, or links in the log). */
  mailer: Mailer;
  /** Sign-in, sessions, profile, organization, team, keys over HTTP, trial, deletion and purge (docs/accounts.md). */
  accounts: AccountsService;
  /** v1 asset correlation: structured ranges × nameplate assets, trial and partner asset checks. */
  assets: AssetCorrelation;
  /** Watchlists and the product and protocol catalogs (docs/watchlists.md). */
  watchlists: WatchlistService;
  feeds: FeedService;
  /** CVE change history and the corpus change feed. */
  changes: ChangeService;
  /** The alert run over the change feed and the stored alerts (docs/alerts.md). */
  alerts: AlertService;
  /** Triage decisions per environment and CVE, their history, bulk and VEX (docs/triage.md, docs/vex.md). */
  triage: TriageService;
  /** Per environment: open CVEs by sage priority, known exploited, the worst-exposed assets (the web app's overview). */
  overview: OverviewService;
  /** The database's part of the health report (spec §2.9): its size, the ingest runs, the corpus, the feeds. */
  health: { facts(): Promise<HealthFacts> };
  /** The read replicas (DATABASE_REPLICA_URL) and their state, or null without any (health reports them). */
  replicas: ReplicaRouter | null;
  /** VEX export of an environment's decisions (docs/vex.md). */
  vex: VexService;
  /** The daily exposure snapshots of every environment and their history (docs/reports.md). */
  exposure: ExposureHistory;
  /** Plant reports per environment, on demand and by email on each member's schedule (docs/reports.md). */
  reports: PlantReports;
  /** Releases what the services hold (the cache's LISTEN connection); called when the app closes. */
  close(): Promise<void>;
}

export function buildServices(deps: ServiceDeps): Services {
  // First: a broken training module file stops the start before anything holds a connection.
  const training = createTrainingService(deps.store.db, deps.clock, deps.config.trainingDir);
  // Corpus reads on replicas, with the primary's pool options (statement timeout, query deadline, size).
  const r = deps.config.replicas;
  const popts = deps.store.pool.options;
  // `false` turns the statement timeout off, as leaving it out does.
  const statementTimeoutMs = popts.statement_timeout === false ? undefined : popts.statement_timeout;
  const replicas =
    r && r.urls.length > 0
      ? new ReplicaRouter(deps.store, r.urls, {
          maxLagMs: r.maxLagMs,
          checkIntervalMs: r.checkMs,
          store: { statementTimeoutMs, queryDeadlineMs: popts.query_timeout, max: popts.max },
          onError: (err) => deps.warn('read replica check failed', err),
        })
      : null;
  const cves = createCveReaderService(deps.store, {
    replicas,
    publicUrl: deps.config.publicUrl,
    cacheEntries: deps.config.cveCacheEntries,
    fullTextIndex: deps.config.searchIndex,
    onCacheError: (err) => deps.warn('CVE cache listener down; cache disabled until it reconnects', err),
  });
  const webhooks = createWebhookService({
    db: deps.store.db,
    clock: deps.clock,
    config: deps.config,
    onDisabled: (e) =>
      deps.warn(
        'webhook disabled after 5 consecutive failed deliveries',
        Object.assign(new Error(`webhook ${e.webhookId} of organization ${e.orgId}`), e),
      ),
  });
  const mailer = createMailer({
    smtpUrl: deps.config.smtpUrl,
    from: deps.config.mailFrom,
    info: deps.info ?? (() => {}),
    warn: deps.warn,
  });
  const windows = createWindowsCorrelation({
    db: deps.store.db,
    clock: deps.clock,
    planCaps: deps.config.planCaps,
    onCacheError: (err) => deps.warn('Windows signal refresh failed; the cached signals stay until they expire', err),
  });
  const environments = createEnvironmentService(deps.store.db, deps.config.planCaps);
  const assets = createAssetCorrelation({
    db: deps.store.db,
    clock: deps.clock,
    publicUrl: deps.config.publicUrl,
    planCaps: deps.config.planCaps,
    corpus: { generation: () => cves.corpusGeneration() },
    corpusDb: cves.corpus.db,
  });
  const triage = createTriageService(deps.store.db);
  const overview = createOverviewService({
    environments,
    assets,
    stamp: (orgId, envId) => environmentStamp(deps.store.db, orgId, envId),
    generation: () => cves.corpusGeneration(),
  });
  const exposure = createExposureHistory({
    db: deps.store.db,
    clock: deps.clock,
    environments,
    overview,
    windows,
    triage,
  });
  return {
    cves,
    identity: createIdentityService(deps.store.db, deps.clock),
    environments,
    windows,
    training,
    accountPreferences: createAccountPreferences(deps.store.db, deps.clock, deps.config.planCaps),
    webhooks,
    mailer,
    accounts: createAccountsService({
      store: deps.store,
      clock: deps.clock,
      mailer,
      publicUrl: deps.config.publicUrl,
      planCaps: deps.config.planCaps,
      warn: deps.warn,
    }),
    assets,
    watchlists: createWatchlistService(deps.store.db, cves.corpus.db),
    feeds: createFeedService(deps.store.db, deps.clock, deps.config.publicUrl, cves.corpus.db),
    changes: createChangeService(deps.store.db),
    health: { facts: () => healthFacts(deps.store.db) },
    replicas,
    alerts: createAlertService(deps.store.db, { publicUrl: deps.config.publicUrl, now: () => deps.clock.now() }),
    triage,
    overview,
    exposure,
    reports: createPlantReports({ db: deps.store.db, clock: deps.clock, environments, exposure }),
    vex: createVexService(deps.store.db, deps.config.publicUrl),
    async close() {
      mailer.close();
      await cves.close();
      await replicas?.close();
      await webhooks.close();
    },
  };
}
