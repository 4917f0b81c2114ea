// The import pipeline's options, its summary and its refusals (services/import/pipeline.ts runs it).
import type { Db } from '../../store/db.ts';
import type { AnalysisProvider } from '../../domain/analysis.ts';
import type { FeedFormat } from '../../ingest/types.ts';
import type { ProgressSink } from '../../ingest/progress.ts';
import type { MsrcImportSummary } from './msrc-documents.ts';

export interface PipelineLog {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
}

export interface PipelineOptions {
  /** Run label stored in ingest_runs.source (import, snapshot, sync). */
  source?: string;
  log?: PipelineLog;
  progress?: ProgressSink;
  /** CVE source records per transaction. */
  batchSize?: number;
  /** EPSS rows per transaction. */
  epssBatchSize?: number;
  /** Optional analysis provider (OpenAI-compatible); the grounded analysis is used otherwise. */
  provider?: AnalysisProvider;
  now?: () => string;
  /** Wait for a running import instead of refusing. */
  wait?: boolean;
  /**
   * Asked once the pipeline lock is held: false ends the run before it starts (ImportNotNeededError), as when
   * another instance imported the snapshot while this one waited for the lock.
   */
  stillNeeded?: (conn: Db) => Promise<boolean>;
  /**
   * Bulk first import (default true): into an empty corpus, load without the read model's secondary indexes and
   * side-table triggers and rebuild them once at the end of the run (src/store/bulk.ts). False: always incremental.
   */
  bulkLoad?: boolean;
  /**
   * Record CVE changes (default true; docs/watchlists.md "Change history"). False only to measure what recording
   * costs (bench/change-history.ts): a run without it leaves no history of what it changed.
   */
  recordChanges?: boolean;
  /**
   * Concurrent batch writers (default 2, one per core of the reference machine), each on its own pooled
   * connection; records are routed to writers by CVE id, so each CVE's records keep their order.
   */
  writers?: number;
  /**
   * Store each MSRC document's Windows subset (API v2 tables) as the document is read (default true), so a
   * document is parsed once for the corpus and the Windows engine. The sync's MSRC source stores them itself.
   */
  windowsDocuments?: boolean;
  /**
   * Skip, with a warning, a file its reader refuses before its first item (importPaths: local folders hold
   * other files). Off for the sync, where a refused download fails its source.
   */
  skipRefused?: boolean;
  /**
   * Stops the run between records and batches (SIGTERM during the first start's snapshot import): the batches in
   * flight settle, the run is recorded as failed with the reason, and a bulk load is left for the next run to
   * finish, so the stop is quick. The promise rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** Test hook: called after each committed batch. */
  afterBatch?: (batch: number) => void | Promise<void>;
}

export interface PipelineSummary {
  inputs: { label: string; format: FeedFormat; items: number }[];
  skipped: { label: string; reason: string }[];
  items: number;
  changed_sources: number;
  documents_written: number;
  documents_removed: number;
  corpus: number;
  vendors: number;
  full_reenrichment: boolean;
  /** MSRC documents stored for the Windows engine (API v2). */
  msrc: MsrcImportSummary;
}

export class ImportBusyError extends Error {
  constructor() {
    super('another import or sync is running (database lock held)');
  }
}

/** The run's `stillNeeded` answered false once the lock was held: nothing was done. */
export class ImportNotNeededError extends Error {
  constructor() {
    super('the import is no longer needed');
  }
}
