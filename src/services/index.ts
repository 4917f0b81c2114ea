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

export interface ServiceDeps {
  config: Readonly<Config>;
  store: Store;
  clock: Clock;
  /** Where services report degraded states they recover from (e.g. the cache listener down). */
  warn: (msg: string, err: Error) => void;
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
  /** Releases what the services hold (the cache's LISTEN connection); called when the app closes. */
  close(): Promise<void>;
}

export function buildServices(deps: ServiceDeps): Services {
  // First: a broken training module file stops the start before anything holds a connection.
  const training = createTrainingService(deps.store.db, deps.clock, deps.config.trainingDir);
  const cves = createCveReaderService(deps.store, {
    publicUrl: deps.config.publicUrl,
    cacheEntries: deps.config.cveCacheEntries,
    fullTextIndex: deps.config.searchIndex,
    onCacheError: (err) => deps.warn('CVE cache listener down; cache disabled until it reconnects', err),
  });
  return {
    cves,
    identity: createIdentityService(deps.store.db, deps.clock),
    environments: createEnvironmentService(deps.store.db),
    windows: createWindowsCorrelation({
      db: deps.store.db, clock: deps.clock,
      onCacheError: (err) => deps.warn('Windows signal refresh failed; the cached signals stay until they expire', err),
    }),
    training,
    accountPreferences: createAccountPreferences(deps.store.db, deps.clock, deps.config.planCaps),
    async close() {
      await cves.close();
    },
  };
}
