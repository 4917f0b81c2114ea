// `vulnintel sync` (docs/sync.md): fetch the live feeds, or import a local directory with --from (offline).
import path from 'node:path';
import { UsageError, type Command } from './types.ts';
import { systemClock } from '../lib/clock.ts';
import { createEgress } from '../lib/egress.ts';
import { importPaths } from '../services/import/pipeline.ts';
import { createProgress, silentProgress } from '../ingest/progress.ts';
import { lastSyncRuns, syncCursors, syncLockHolder, syncRunLabel } from '../store/sync-state.ts';
import { runSync, SyncBusyError, syncSources } from '../services/sync/sync.ts';
import { pipelineSink } from '../services/sync/sync-sink.ts';

/** Exit status when another sync holds the lock (EX_TEMPFAIL: try again later). */
export const EXIT_BUSY = 75;

const syncCommand: Command = {
  summary:
    'Fetch the live feeds (NVD, CVE Program cvelistV5, KEV, EPSS, CWE, CAPEC, CISA CSAF ICS, MSRC) incrementally; --from DIR imports local files instead',
  usage: 'vulnintel sync [--source NAME]... [--from DIR] [--status] [--quiet] [--json]',
  options: {
    source: { type: 'string', multiple: true },
    from: { type: 'string' },
    status: { type: 'boolean' },
    quiet: { type: 'boolean' },
  },
  async run(ctx, values) {
    const sources: unknown[] = Array.isArray(values.source) ? values.source : [];
    const names = sources
      .filter((s) => typeof s === 'string')
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
    const known = syncSources().map((s) => s.name);
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) throw new UsageError(`unknown source ${unknown.join(', ')} (known: ${known.join(', ')})`);
    if (values.from !== undefined && (names.length || values.status))
      throw new UsageError('--from cannot be combined with --source or --status');
    const rt = await ctx.runtime();
    const db = rt.store.db;

    if (values.status) {
      const cursors = await syncCursors(db);
      const last = await lastSyncRuns(db, known);
      const holder = await syncLockHolder(db);
      const status = known.map((name) => {
        const c = cursors.find((x) => x.source === name);
        const run = last.find((r) => r.source === syncRunLabel(name));
        return {
          source: name,
          checkpoint: c?.cursor ?? null,
          checkpoint_at: c?.updated_at ?? null,
          last_run: run
            ? {
                status: run.status,
                started_at: run.started_at,
                finished_at: run.finished_at,
                rows: run.rows,
                error: run.error,
              }
            : null,
        };
      });
      const running = holder === null ? null : { backend_pid: holder };
      if (ctx.json) ctx.out(JSON.stringify({ running, sources: status }));
      else {
        if (running)
          ctx.out(
            `A sync is running now (database backend pid ${running.backend_pid}); the runs below are the last finished ones.`,
          );
        for (const s of status) {
          const run = s.last_run
            ? `${s.last_run.status} at ${new Date(s.last_run.finished_at ?? s.last_run.started_at).toISOString()}, ${s.last_run.rows} records${s.last_run.error ? ` (${s.last_run.error})` : ''}`
            : 'never synced';
          const at = s.checkpoint_at ? `; checkpoint ${new Date(s.checkpoint_at).toISOString()}` : '';
          ctx.out(`${s.source.padEnd(6)} ${run}${at}`);
        }
      }
      return 0;
    }

    if (typeof values.from === 'string') {
      const progress = values.quiet || ctx.json ? silentProgress : createProgress(process.stderr);
      const summary = await importPaths(db, [path.resolve(values.from)], {
        log: ctx.log,
        progress,
        source: 'sync:offline',
        signal: ctx.signal,
      });
      if (ctx.json) ctx.out(JSON.stringify(summary));
      else {
        for (const s of summary.skipped) ctx.out(`skipped ${s.label}: ${s.reason}`);
        ctx.out(
          `Imported ${summary.inputs.length} file(s) from ${values.from}, ${summary.items} records; corpus ${summary.corpus} CVEs.`,
        );
      }
      return 0;
    }

    const egress = createEgress({ allowList: ctx.config.egressAllowList });
    try {
      const report = await runSync(
        {
          store: rt.store,
          egress,
          sink: pipelineSink(db, { log: ctx.log }),
          clock: systemClock,
          log: {
            info: (o, m) => {
              if (!values.quiet && !ctx.json)
                process.stderr.write(`${m}${'source' in o ? ` [${String(o.source)}]` : ''}\n`);
            },
            warn: (o, m) => ctx.log.warn(o, m),
          },
          urls: ctx.config.feedUrls,
          nvdApiKey: ctx.config.nvdApiKey,
          proxyVariable: ctx.config.proxyVariable,
          stagingRoot: path.join(ctx.config.dataDir, 'sync-staging'),
        },
        names,
      );
      if (ctx.json) ctx.out(JSON.stringify(report));
      else {
        for (const s of report.sources) {
          ctx.out(`${s.source.padEnd(6)} ${s.status === 'succeeded' ? `ok      ${s.summary}` : `FAILED  ${s.error}`}`);
        }
      }
      return report.ok ? 0 : 1;
    } catch (e) {
      if (e instanceof SyncBusyError) {
        process.stderr.write(`${e.message}\n`);
        return EXIT_BUSY;
      }
      throw e;
    } finally {
      await egress.close();
    }
  },
};

/** `vulnintel sync` (table read by src/cli-commands.ts). */
export const SYNC_COMMANDS: Readonly<Record<string, Command>> = { sync: syncCommand };
