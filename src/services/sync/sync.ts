// `vulnintel sync`: fetches the live feeds and hands each downloaded file to the import pipeline (docs/sync.md).
// Single-flight through a Postgres advisory lock. Each source is one `SyncSource` (name + run(ctx)), so another
// feed is added as one more entry of the SYNC_SOURCES table.
// Every source run is recorded as an ingest run (stage `ingest`, source `sync:<name>`) when it ends, and a
// failing source is recorded failed with its error while the others still run.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FeedUrls } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Egress } from '../../lib/egress.ts';
import type { FeedFormat, IngestItem } from '../../ingest/types.ts';
import type { Store } from '../../store/db.ts';
import { getCursor, recordIngestRun, setCursor, syncRunLabel, tryAcquireSyncLock } from '../../store/sync-state.ts';
import { failStaleRuns, withImportLock } from '../../store/ingest.ts';
import { DEFAULT_RETRY, type HttpDeps, type RetryPolicy } from './sync-http.ts';
import { nvdSource } from './sync-nvd.ts';
import { cve5Source } from './sync-cve5.ts';
import { capecSource, csafSource, cweSource, epssSource, kevSource } from './sync-feeds.ts';
import { msrcSource } from './sync-msrc.ts';

export interface FeedFile {
  file: string;
  format: FeedFormat;
}

/**
 * Where fetched files go: the import pipeline. It reads each file with the reader for its format (the readers
 * in src/ingest/), writes the records in batches (each batch one transaction), and answers with the number of
 * records read. Several files are imported in one pipeline run (the CSAF documents of one batch).
 */
export interface FeedSink {
  importFiles(files: readonly FeedFile[], info: { source: string }): Promise<{ records: number }>;
  /**
   * The same for items a source has already read (its own parse of a fetched file, read once: the MSRC source
   * parses each document for its Windows tables too). `label` names the input in logs and errors.
   */
  importItems(input: FeedItems, info: { source: string }): Promise<{ records: number }>;
}

export interface FeedItems {
  label: string;
  format: FeedFormat;
  items: () => AsyncIterable<IngestItem> | Iterable<IngestItem>;
}

export interface SyncLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What a source gets to do its work. */
export interface SyncContext extends HttpDeps {
  source: string;
  store: Store;
  sink: FeedSink;
  log: SyncLog;
  urls: Readonly<FeedUrls>;
  nvdApiKey: string | null;
  /** An empty directory for this source's downloads, removed after the run. */
  stagingDir: string;
  /** NVD page size (the API's maximum, 2,000, unless a test asks for less). */
  nvdPageSize: number;
  getCursor<T extends object>(): Promise<T | null>;
  /** Writes the checkpoint; call only after the data it covers is committed. */
  setCursor(cursor: object): Promise<void>;
  /** Adds to the ingest run's row count. */
  addRecords(n: number): void;
}

export interface SourceOutcome {
  /** Records handed to the pipeline (0 when nothing changed). */
  records: number;
  /** Files (pages, documents) imported. */
  files: number;
  /** One line for the CLI, e.g. "unchanged (304 Not Modified)". */
  summary: string;
}

export interface SyncSource {
  name: string;
  run(ctx: SyncContext): Promise<SourceOutcome>;
}

/**
 * Every sync source, in run order: catalogs first (CWE, CAPEC), then the CVE sources, then the per-CVE scores,
 * then Microsoft's documents (Windows engine and CVE corpus). One explicit table; nothing registers itself.
 */
export const SYNC_SOURCES: readonly SyncSource[] = [
  cweSource,
  capecSource,
  nvdSource,
  cve5Source,
  csafSource,
  kevSource,
  epssSource,
  msrcSource,
];

export function syncSources(): readonly SyncSource[] {
  return SYNC_SOURCES;
}

export class SyncBusyError extends Error {
  constructor(holderPid: number | null) {
    super(
      `Another vulnintel sync is already running${holderPid ? ` (database backend pid ${holderPid})` : ''}; this one exits without doing anything. Try again when it has finished.`,
    );
    this.name = 'SyncBusyError';
  }
}

export interface SyncDeps {
  store: Store;
  egress: Egress;
  sink: FeedSink;
  clock: Clock;
  log: SyncLog;
  urls: Readonly<FeedUrls>;
  nvdApiKey: string | null;
  /** Parent of the per-source staging directories. */
  stagingRoot: string;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  nvdPageSize?: number;
  /** config.proxyVariable: named in the error when a feed cannot be reached (no proxy is ever used). */
  proxyVariable?: string | null;
}

export interface SourceReport extends Partial<SourceOutcome> {
  source: string;
  status: 'succeeded' | 'failed';
  error?: string;
  run_id: number;
}

export interface SyncReport {
  ok: boolean;
  sources: SourceReport[];
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs the given sources (default: all registered, in registration order) under the single-flight lock. */
export async function runSync(deps: SyncDeps, only?: readonly string[]): Promise<SyncReport> {
  const all = syncSources();
  const unknown = (only ?? []).filter((n) => !all.some((s) => s.name === n));
  if (unknown.length)
    throw new Error(`Unknown sync source(s): ${unknown.join(', ')} (known: ${all.map((s) => s.name).join(', ')})`);
  const sources = only?.length ? all.filter((s) => only.includes(s.name)) : all;

  const lock = await tryAcquireSyncLock(deps.store.pool);
  if ('held' in lock) throw new SyncBusyError(lock.holderPid);
  const reports: SourceReport[] = [];
  try {
    // Runs a killed sync or import left `running` are marked failed now, as the pipeline does when it starts: a
    // sync that finds nothing new never starts the pipeline, and they would stay `running` (the health payload's
    // enricher "running" for days). Only when no import holds the pipeline lock: its own runs are running.
    const stale = await withImportLock(deps.store.db, (conn) => failStaleRuns(conn));
    if (stale.ran && stale.value)
      deps.log.warn({ runs: stale.value }, 'runs left running by an interrupted process were marked failed');
    for (const source of sources) reports.push(await runSource(deps, source));
  } finally {
    await lock.release();
  }
  return { ok: reports.every((r) => r.status === 'succeeded'), sources: reports };
}

async function runSource(deps: SyncDeps, source: SyncSource): Promise<SourceReport> {
  const db = deps.store.db;
  const runName = syncRunLabel(source.name);
  const startedAt = deps.clock.now();
  const stagingDir = path.join(deps.stagingRoot, source.name);
  await rm(stagingDir, { recursive: true, force: true });
  await mkdir(stagingDir, { recursive: true });
  let rows = 0;
  const ctx: SyncContext = {
    source: source.name,
    store: deps.store,
    sink: deps.sink,
    egress: deps.egress,
    clock: deps.clock,
    sleep: deps.sleep ?? realSleep,
    random: deps.random ?? Math.random,
    retry: { ...DEFAULT_RETRY, ...deps.retry },
    log: deps.log,
    urls: deps.urls,
    nvdApiKey: deps.nvdApiKey,
    stagingDir,
    nvdPageSize: deps.nvdPageSize ?? 2000,
    proxyVariable: deps.proxyVariable ?? null,
    getCursor: <T extends object>() => getCursor<T>(db, source.name),
    setCursor: (c: object) => setCursor(db, source.name, c, deps.clock.now()),
    addRecords: (n: number) => {
      rows += n;
    },
  };
  deps.log.info({ source: source.name }, 'sync source started');
  try {
    const outcome = await source.run(ctx);
    const runId = await recordIngestRun(db, {
      source: runName,
      status: 'succeeded',
      rows,
      error: null,
      startedAt,
      finishedAt: deps.clock.now(),
    });
    deps.log.info(
      { source: source.name, records: outcome.records, files: outcome.files },
      `sync source done: ${outcome.summary}`,
    );
    return { source: source.name, status: 'succeeded', run_id: runId, ...outcome };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const runId = await recordIngestRun(db, {
      source: runName,
      status: 'failed',
      rows,
      error: message.slice(0, 2000),
      startedAt,
      finishedAt: deps.clock.now(),
    });
    deps.log.warn({ source: source.name, error: message }, 'sync source failed');
    return { source: source.name, status: 'failed', error: message, run_id: runId, records: rows };
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
