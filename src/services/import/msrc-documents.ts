// MSRC documents into the Windows tables (msrc_documents, msrc_fixes): from files (`vulnintel import`, the
// bundled snapshot) or from the live API (`vulnintel sync`). A document is replaced only when its content
// changed (revised documents keep their ID and get a new CurrentReleaseDate).
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../store/db.ts';
import { countMsrcDocuments, msrcDocumentStates, replaceMsrcDocument } from '../../store/windows.ts';
import type { MsrcDocument } from '../../domain/windows/msrc-types.ts';
import { looksLikeMsrc, parseMsrcBuffer, parseUpdatesIndex } from '../../ingest/msrc.ts';
import { prepareMsrcDocument, type PreparedMsrcDocument } from '../../ingest/msrc-prepare.ts';
import { errorMessage } from '../../lib/errors.ts';

export interface MsrcImportSummary {
  documents: number;
  added: string[];
  revised: string[];
  unchanged: number;
  skipped: { label: string; reason: string }[];
}

export function emptyMsrcSummary(): MsrcImportSummary {
  return { documents: 0, added: [], revised: [], unchanged: 0, skipped: [] };
}

/** Stores one prepared document (storePreparedMsrcDocument) and counts the outcome in the summary. */
export async function storeAndCount(
  db: Db,
  doc: PreparedMsrcDocument,
  cvrfUrl: string | null,
  states: Map<string, { sha256: string }>,
  summary: MsrcImportSummary,
): Promise<void> {
  const r = await storePreparedMsrcDocument(db, doc, cvrfUrl, states);
  summary.documents++;
  if (r === 'added') summary.added.push(doc.id);
  else if (r === 'revised') summary.revised.push(doc.id);
  else summary.unchanged++;
}

/** Store one prepared document unless the stored copy has the same content (the same hash). */
export async function storePreparedMsrcDocument(
  db: Db,
  doc: PreparedMsrcDocument,
  cvrfUrl: string | null,
  states?: Map<string, { sha256: string }>,
): Promise<'added' | 'revised' | 'unchanged'> {
  const prev = (states ?? (await msrcDocumentStates(db))).get(doc.id);
  if (prev && prev.sha256 === doc.sha256) return 'unchanged';
  await replaceMsrcDocument(db, { ...doc, cvrf_url: cvrfUrl });
  return prev ? 'revised' : 'added';
}

async function walk(p: string, out: string[]): Promise<void> {
  const st = await stat(p);
  if (st.isDirectory()) {
    for (const e of (await readdir(p)).sort()) if (!e.startsWith('.')) await walk(path.join(p, e), out);
  } else if (st.isFile()) out.push(p);
}

/**
 * Import every MSRC document (XML or JSON, plain or .gz) found under the paths. A `/updates` index file
 * (value[] with CvrfUrl) found there supplies each document's address; without it, none is invented.
 */
export async function importMsrcDocuments(
  db: Db,
  paths: string[],
  log?: { info(o: object, m?: string): void },
): Promise<MsrcImportSummary> {
  const files: string[] = [];
  for (const p of paths) await walk(path.resolve(p), files);
  const urls = new Map<string, string>();
  const docs: string[] = [];
  const summary = emptyMsrcSummary();
  for (const f of files) {
    if (!/\.(xml|json)(\.gz)?$/i.test(f)) continue;
    const buf = await readFile(f);
    if (looksLikeMsrc(buf)) {
      docs.push(f);
      continue;
    }
    if (/\.json(\.gz)?$/i.test(f) && buf.subarray(0, 200).toString('utf8').includes('@odata.context')) {
      try {
        for (const e of parseUpdatesIndex(JSON.parse(buf.toString('utf8')))) urls.set(e.id, e.cvrfUrl);
      } catch (e) {
        summary.skipped.push({ label: f, reason: errorMessage(e) });
      }
    }
  }
  const states = await msrcDocumentStates(db);
  for (const f of docs) {
    let doc: MsrcDocument;
    try {
      doc = parseMsrcBuffer(await readFile(f));
    } catch (e) {
      summary.skipped.push({ label: f, reason: errorMessage(e) });
      continue;
    }
    await storeAndCount(db, prepareMsrcDocument(doc), urls.get(doc.id) ?? null, states, summary);
  }
  log?.info(
    {
      documents: summary.documents,
      added: summary.added.length,
      revised: summary.revised.length,
      unchanged: summary.unchanged,
    },
    'MSRC documents imported',
  );
  return summary;
}

/** At start: import snapshot/msrc when no MSRC document is stored (unless automatic import is off). */
export async function ensureMsrcSnapshot(
  db: Db,
  config: { snapshotDir: string; autoImportSnapshot: boolean },
  log: { info(o: object, m?: string): void; warn(o: object, m?: string): void },
): Promise<MsrcImportSummary | null> {
  if (!config.autoImportSnapshot) return null;
  if ((await countMsrcDocuments(db)) > 0) return null;
  const dir = path.join(config.snapshotDir, 'msrc');
  if (!existsSync(dir)) {
    log.warn(
      { dir },
      'no MSRC documents stored and no snapshot/msrc folder: API v2 has no Microsoft data until `vulnintel import` or `vulnintel sync`',
    );
    return null;
  }
  log.info({ dir }, 'no MSRC documents stored: importing the bundled MSRC snapshot');
  return importMsrcDocuments(db, [dir], log);
}
