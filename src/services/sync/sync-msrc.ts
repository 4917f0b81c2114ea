// `vulnintel sync` for Microsoft's security data: reads the MSRC CVRF `/updates` index and fetches every
// document that is new or whose CurrentReleaseDate is newer than the stored revision (Microsoft regenerates
// old months when a CVE is revised: trap 7 of windows-engine.md). Each document goes to the Windows tables
// and, through the pipeline sink, its CVEs to the corpus. Listed in the SYNC_SOURCES table of sync.ts.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { SourceOutcome, SyncContext, SyncSource } from './sync.ts';
import { expectOk, fetchAndRead, SyncHttpError } from './sync-http.ts';
import { parseMsrcBuffer, parseUpdatesIndex } from '../../ingest/msrc.ts';
import { storePreparedMsrcDocument } from '../import/msrc-documents.ts';
import { msrcCveItems } from '../../ingest/msrc-feed.ts';
import { prepareMsrcDocument } from '../../ingest/msrc-prepare.ts';
import { msrcDocumentStates } from '../../store/windows.ts';
import type { MsrcUpdateEntry } from '../../domain/windows/msrc-types.ts';
import { errorMessage } from '../../lib/errors.ts';

const MiB = 1024 * 1024;

interface MsrcCursor {
  listed: number;
  newest_revision: string | null;
  fetched_at: string;
}

/** Index entries to fetch: not stored yet, or revised after the stored revision date. */
export function msrcToFetch(
  index: MsrcUpdateEntry[],
  stored: Map<string, { revision_date: Date | null }>,
): MsrcUpdateEntry[] {
  return index.filter((e) => {
    const s = stored.get(e.id);
    return !s || !s.revision_date || !e.currentReleaseDate || s.revision_date.toISOString() < e.currentReleaseDate;
  });
}

export const msrcSource: SyncSource = {
  name: 'msrc',
  async run(ctx: SyncContext): Promise<SourceOutcome> {
    const body = await fetchAndRead(
      ctx,
      ctx.urls.msrc,
      { headers: { accept: 'application/json' }, maxResponseBytes: 16 * MiB },
      async (res) => {
        await expectOk(res, 'MSRC updates index');
        return res.bytes();
      },
    );
    let index: MsrcUpdateEntry[];
    try {
      index = parseUpdatesIndex(JSON.parse(body.toString('utf8')));
    } catch (e) {
      throw new SyncHttpError(`MSRC: ${errorMessage(e)}`, 200);
    }
    const todo = msrcToFetch(index, await msrcDocumentStates(ctx.store.db));
    let records = 0;
    let files = 0;
    const failures: string[] = [];
    for (const entry of todo) {
      try {
        const file = path.join(ctx.stagingDir, `${entry.id.replace(/[^A-Za-z0-9._-]/g, '_')}.xml`);
        await fetchAndRead(
          ctx,
          entry.cvrfUrl,
          { headers: { accept: 'application/xml' }, maxResponseBytes: 64 * MiB },
          async (doc) => {
            await expectOk(doc, `MSRC ${entry.id}`);
            return doc.saveTo(file);
          },
        );
        const parsed = parseMsrcBuffer(await readFile(file));
        if (parsed.id !== entry.id) throw new Error(`document ID ${parsed.id} does not match the index entry`);
        // Corpus first, then the Windows tables: a failure before the last step leaves the stored revision
        // older than the index, so the next sync fetches this document again.
        // Parsed once and prepared once: the pipeline takes this parse's CVE records, and the Windows tables its
        // prepared rows.
        const prepared = prepareMsrcDocument(parsed);
        const imported = await ctx.sink.importItems(
          { label: file, format: 'msrc-cvrf', items: () => msrcCveItems(parsed) },
          { source: 'msrc' },
        );
        await storePreparedMsrcDocument(ctx.store.db, prepared, entry.cvrfUrl);
        await rm(file, { force: true });
        records += imported.records;
        ctx.addRecords(imported.records);
        files++;
      } catch (e) {
        failures.push(`${entry.id}: ${errorMessage(e)}`);
        ctx.log.warn({ source: 'msrc', document: entry.id, error: errorMessage(e) }, 'MSRC document not imported');
      }
    }
    if (failures.length) {
      throw new SyncHttpError(
        `MSRC: ${failures.length} of ${todo.length} new or revised documents failed (first: ${failures[0]}); ${files} imported`,
        null,
      );
    }
    let newest: string | null = null;
    for (const e of index)
      if (e.currentReleaseDate && (!newest || e.currentReleaseDate > newest)) newest = e.currentReleaseDate;
    const cursor: MsrcCursor = {
      listed: index.length,
      newest_revision: newest,
      fetched_at: ctx.clock.now().toISOString(),
    };
    await ctx.setCursor(cursor);
    return {
      records,
      files,
      summary: `${files} new or revised of ${index.length} documents listed, ${records} records`,
    };
  },
};
