// `vulnintel import PATH...` (docs/ingest.md). Progress goes to stderr; --json prints the summary.
import { UsageError, type Command } from './types.ts';
import { importPaths } from '../services/import/pipeline.ts';
import { closeInputs, openInputs } from '../ingest/inputs.ts';
import { createProgress, silentProgress } from '../ingest/progress.ts';
import { fillAnswers } from '../store/cves.ts';

const importCommand: Command = {
  summary: 'Import local feed files or directories (formats detected per file; .gz read as is)',
  usage: 'vulnintel import PATH... [--batch-size N] [--writers N] [--quiet] [--json]',
  options: { 'batch-size': { type: 'string' }, writers: { type: 'string' }, quiet: { type: 'boolean' } },
  async run(ctx, values, positionals) {
    if (!positionals.length) throw new UsageError('give at least one file or directory');
    const batch = values['batch-size'] === undefined ? undefined : Number(values['batch-size']);
    if (batch !== undefined && (!Number.isInteger(batch) || batch < 1 || batch > 20000))
      throw new UsageError('--batch-size must be an integer between 1 and 20000');
    const writers = values.writers === undefined ? undefined : Number(values.writers);
    if (writers !== undefined && (!Number.isInteger(writers) || writers < 1 || writers > 8))
      throw new UsageError('--writers must be an integer between 1 and 8');
    // The files are collected and their feed threads started first: the threads start up and read ahead while the
    // database is opened and migrated.
    const collected = await openInputs(positionals);
    let rt;
    try {
      rt = await ctx.runtime();
    } catch (e) {
      await closeInputs(collected.inputs);
      throw e;
    }
    const progress = values.quiet ? silentProgress : createProgress(process.stderr);
    // The OpenAI-compatible analysis is used only when configured (its module, with the HTTP client, is loaded only
    // then); failures keep records pending, never fail the import.
    const { baseUrl, model } = ctx.config.analysis;
    const analysis =
      baseUrl && model
        ? (await import('../services/import/analysis-provider.ts')).providerFromConfig(ctx.config)
        : null;
    let summary;
    try {
      summary = await importPaths(rt.store.db, collected, {
        log: ctx.log,
        progress,
        batchSize: batch,
        writers,
        provider: analysis?.provider,
        signal: ctx.signal,
      });
    } finally {
      await analysis?.close();
    }
    // CVEs written before their detail answers existed (migration 1650), or by code of another answer shape, get
    // theirs now (the import wrote those of the documents it changed).
    const answers = await fillAnswers(rt.store.db);
    // MSRC documents also fed the Windows engine's own tables (API v2), parsed once by the pipeline.
    const { msrc } = summary;
    if (ctx.json) ctx.out(JSON.stringify(summary));
    else {
      for (const s of summary.skipped) ctx.out(`skipped ${s.label}: ${s.reason}`);
      ctx.out(
        `Imported ${summary.inputs.length} file(s), ${summary.items} records; ${summary.documents_written} CVE documents written, corpus ${summary.corpus} CVEs, ${summary.vendors} vendors.`,
      );
      if (answers > 0) ctx.out(`Stored the detail answers of ${answers} CVEs written before.`);
      if (msrc.documents)
        ctx.out(
          `MSRC documents: ${msrc.documents} read, ${msrc.added.length} new, ${msrc.revised.length} revised, ${msrc.unchanged} unchanged.`,
        );
    }
  },
};

/** `vulnintel import` (table read by src/cli-commands.ts). */
export const IMPORT_COMMANDS: Readonly<Record<string, Command>> = { import: importCommand };
