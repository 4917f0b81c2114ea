// Whole-file feeds (CISA KEV, FIRST EPSS, MITRE CWE, MITRE CAPEC) and the CISA CSAF ICS ROLIE feed
// (docs/sync.md). Whole files are fetched with a conditional GET and imported only when they changed; CSAF
// documents are fetched only when the feed lists them as new or with a changed `updated`.
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { isGzip, readHead } from '../../ingest/io.ts';
import type { FeedFormat } from '../../ingest/types.ts';
import { getDocumentVersions, setDocumentVersion } from '../../store/sync-state.ts';
import type { SourceOutcome, SyncContext, SyncSource } from './sync.ts';
import {
  displayUrl,
  expectOk,
  fetchAndRead,
  fetchFileIfChanged,
  jsonField,
  SyncHttpError,
  type FileValidators,
} from './sync-http.ts';
import { errorMessage } from '../../lib/errors.ts';

const MiB = 1024 * 1024;
/** CSAF documents per pipeline run (the first sync lists ~2,400). */
export const CSAF_BATCH = 100;

interface WholeFileCursor extends FileValidators {
  fetched_at: string;
  /** Catalog facts read from the file (version, date), for `vulnintel sync --status`. */
  meta?: Record<string, string>;
}

interface WholeFileSpec {
  name: 'kev' | 'epss' | 'cwe' | 'capec';
  format: FeedFormat;
  fileName: string;
  maxBytes: number;
  /** Turns the download into the file the reader takes (the CWE zip → its XML). */
  prepare?: (downloaded: string, ctx: SyncContext) => Promise<string>;
  /** Reads catalog facts from the head of the file; throws when the file is not what the feed should be. */
  describe: (head: string) => Record<string, string>;
  /**
   * The file's date as an ISO-ordered string (catalog version or date), read from those facts; null when unknown.
   * A file older than the one imported last (a stale mirror or cache) is refused: importing it would undo the
   * newer one (a KEV catalog is the whole list, so the entries added since would leave the corpus).
   */
  dated?: (meta: Record<string, string>) => string | null;
}

function wholeFileSource(spec: WholeFileSpec): SyncSource {
  return {
    name: spec.name,
    async run(ctx: SyncContext): Promise<SourceOutcome> {
      const previous = await ctx.getCursor<WholeFileCursor>();
      const url = ctx.urls[spec.name];
      const got = await fetchFileIfChanged(ctx, url, path.join(ctx.stagingDir, spec.fileName), previous, {
        maxBytes: spec.maxBytes,
        what: spec.name.toUpperCase(),
      });
      if (!got.changed) {
        // New validators for the same content: keep them, so the next request can be answered with a 304.
        if (got.reason === 'same-content' && previous) await ctx.setCursor({ ...previous, ...got.validators });
        return {
          records: 0,
          files: 0,
          summary: `unchanged (${got.reason === 'not-modified' ? '304 Not Modified' : 'same content as the last sync'})`,
        };
      }
      const file = spec.prepare ? await spec.prepare(got.file, ctx) : got.file;
      let meta: Record<string, string>;
      try {
        meta = spec.describe(await readHead(file));
      } catch (e) {
        throw new SyncHttpError(`${spec.name.toUpperCase()}: ${errorMessage(e)}`, 200);
      }
      const newDate = spec.dated?.(meta) ?? null;
      const oldDate = previous?.meta ? (spec.dated?.(previous.meta) ?? null) : null;
      if (newDate !== null && oldDate !== null && newDate < oldDate) {
        throw new SyncHttpError(
          `${spec.name.toUpperCase()}: ${displayUrl(url)} served an older file (${describeMeta(meta)}) than the one imported on ${previous?.fetched_at ?? '?'} (${describeMeta(previous?.meta ?? {}, Object.keys(meta))}); not imported, the corpus keeps the newer one. A stale mirror or cache answers like this; the next sync asks again`,
          200,
        );
      }
      const { records } = await ctx.sink.importFiles([{ file, format: spec.format }], { source: spec.name });
      ctx.addRecords(records);
      // Checkpoint only after the import committed: a failed import is fetched again next time.
      const cursor: WholeFileCursor = { ...got.validators, fetched_at: ctx.clock.now().toISOString(), meta };
      await ctx.setCursor(cursor);
      const facts = describeMeta(meta);
      return { records, files: 1, summary: `${records} records imported${facts ? ` (${facts})` : ''}` };
    },
  };
}

/** `k v, k v` in the order of `keys` first (the checkpoint's jsonb has its own key order), then the rest. */
function describeMeta(meta: Record<string, string>, keys: readonly string[] = []): string {
  const rank = (k: string) => (keys.includes(k) ? keys.indexOf(k) : keys.length);
  return Object.entries(meta)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

function need(m: RegExpExecArray | null, message: string): RegExpExecArray {
  if (!m) throw new Error(message);
  return m;
}

export const kevSource = wholeFileSource({
  name: 'kev',
  format: 'kev',
  fileName: 'known_exploited_vulnerabilities.json',
  maxBytes: 64 * MiB,
  describe: (head) => {
    const v = need(
      /"catalogVersion"\s*:\s*"([^"]{1,40})"/.exec(head),
      'the file is not a KEV catalog (no catalogVersion)',
    );
    const c = /"count"\s*:\s*(\d+)/.exec(head);
    return { catalogVersion: v[1], ...(c ? { count: c[1] } : {}) };
  },
  // catalogVersion is the release date, e.g. 2026.08.07.
  dated: (meta) =>
    /^\d{4}\.\d{2}\.\d{2}$/.test(meta.catalogVersion ?? '') ? meta.catalogVersion.replace(/\./g, '-') : null,
});

/**
 * Reads a downloaded gzip file to its end (nothing kept) so a cut or damaged one is refused before the pipeline
 * sees it: the pipeline commits EPSS in batches of 5,000 rows, so a file that breaks after its first batches would
 * leave part of the new day's scores stored next to the old ones. A file that is not gzip is left to `describe`.
 */
export async function checkGzip(file: string, what: string): Promise<void> {
  if (!(await isGzip(file))) return;
  let out = 0;
  const count = new Writable({
    write(chunk: Buffer, _e, cb) {
      out += chunk.length;
      cb();
    },
  });
  try {
    await pipeline(createReadStream(file), createGunzip(), count);
  } catch (e) {
    throw new SyncHttpError(
      `${what}: the download is not a complete gzip file (${errorMessage(e)} after ${out} bytes of content); nothing was imported, the next sync downloads it again`,
      200,
    );
  }
}

export const epssSource = wholeFileSource({
  name: 'epss',
  format: 'epss-csv',
  fileName: 'epss_scores-current.csv.gz',
  maxBytes: 128 * MiB,
  prepare: async (file) => {
    await checkGzip(file, 'EPSS');
    return file;
  },
  describe: (head) => {
    // The official daily file starts with `#model_version:v2025.03.14,score_date:2025-…`.
    const m = need(
      /^#model_version:([^,\s]+),score_date:(\S+)/.exec(head.replace(/^\uFEFF/, '')),
      'the file has no #model_version line (not the official EPSS CSV)',
    );
    return { model_version: m[1], score_date: m[2] };
  },
  dated: (meta) => {
    const t = Date.parse(meta.score_date ?? '');
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  },
});

/** Largest XML we accept out of the CWE zip (the 4.x catalog is ~16 MB). */
const CWE_XML_MAX_BYTES = 256 * MiB;

/** Extracts the single `.xml` entry of MITRE's `cwec_latest.xml.zip` with yauzl (which checks entry sizes). */
export async function extractCweXml(zipPath: string, destDir: string): Promise<string> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  } catch (e) {
    throw new SyncHttpError(`CWE: the download is not a zip file (${errorMessage(e)})`, 200);
  }
  try {
    for await (const entry of zip.eachEntry()) {
      if (!/^[^/]*\.xml$/i.test(entry.fileName)) continue;
      if (entry.uncompressedSize > CWE_XML_MAX_BYTES) {
        throw new SyncHttpError(
          `CWE: ${entry.fileName} is ${entry.uncompressedSize} bytes, over the ${CWE_XML_MAX_BYTES}-byte cap`,
          200,
        );
      }
      const dest = path.join(destDir, path.basename(entry.fileName));
      const stream = await zip.openReadStreamPromise(entry);
      let seen = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _e, cb) {
          seen += chunk.length;
          cb(seen > CWE_XML_MAX_BYTES ? new SyncHttpError('CWE: XML larger than declared', 200) : null, chunk);
        },
      });
      await pipeline(stream, cap, createWriteStream(dest));
      return dest;
    }
  } finally {
    zip.close();
  }
  throw new SyncHttpError('CWE: the zip holds no .xml file', 200);
}

export const cweSource = wholeFileSource({
  name: 'cwe',
  format: 'cwe-xml',
  fileName: 'cwec_latest.xml.zip',
  maxBytes: 64 * MiB,
  prepare: async (zipPath, ctx) => {
    const xml = await extractCweXml(zipPath, ctx.stagingDir);
    await rm(zipPath, { force: true });
    return xml;
  },
  describe: (head) => {
    const m = need(
      /<Weakness_Catalog\b[^>]*\bVersion="([^"]{1,20})"[^>]*\bDate="([^"]{1,20})"/.exec(head),
      'the XML is not a CWE Weakness_Catalog',
    );
    return { version: m[1], date: m[2] };
  },
  dated: (meta) => (/^\d{4}-\d{2}-\d{2}$/.test(meta.date ?? '') ? meta.date : null),
});

export const capecSource = wholeFileSource({
  name: 'capec',
  format: 'capec-stix',
  fileName: 'stix-capec.json',
  maxBytes: 128 * MiB,
  describe: (head) => {
    need(/"type"\s*:\s*"bundle"/.exec(head), 'the file is not a STIX bundle');
    const v = /"x_capec_version"\s*:\s*"([^"]{1,20})"/.exec(head);
    const facts: Record<string, string> = {};
    if (v) facts.version = v[1];
    return facts;
  },
});

interface RolieEntry {
  id: string;
  updated: string;
  href: string;
}

/** The documents a ROLIE feed lists: id, `updated` and the `self` link (or `content.src`). */
export function rolieEntries(doc: unknown): RolieEntry[] {
  const entry: unknown = jsonField(jsonField(doc, 'feed'), 'entry');
  if (!Array.isArray(entry)) throw new Error('not a ROLIE feed (no feed.entry array)');
  const out: RolieEntry[] = [];
  const entries: unknown[] = entry;
  for (const e of entries) {
    const eid = jsonField(e, 'id');
    const id = typeof eid === 'string' ? eid : null;
    const eupdated = jsonField(e, 'updated');
    const updated = typeof eupdated === 'string' ? eupdated : null;
    const link: unknown = jsonField(e, 'link');
    const links: unknown[] = Array.isArray(link) ? link : [];
    const href =
      jsonField(
        links.find((l) => jsonField(l, 'rel') === 'self'),
        'href',
      ) ?? jsonField(jsonField(e, 'content'), 'src');
    if (!id || !updated || typeof href !== 'string' || id.length > 200) continue;
    out.push({ id, updated, href });
  }
  return out;
}

interface CsafCursor {
  feed: FileValidators;
  feed_updated: string | null;
  documents: number;
  fetched_at: string;
}

export const csafSource: SyncSource = {
  name: 'csaf',
  async run(ctx: SyncContext): Promise<SourceOutcome> {
    const previous = await ctx.getCursor<CsafCursor>();
    const got = await fetchFileIfChanged(
      ctx,
      ctx.urls.csaf,
      path.join(ctx.stagingDir, 'feed.json'),
      previous?.feed ?? null,
      { maxBytes: 64 * MiB, what: 'CSAF feed' },
    );
    if (!got.changed) {
      if (got.reason === 'same-content' && previous) await ctx.setCursor({ ...previous, feed: got.validators });
      return {
        records: 0,
        files: 0,
        summary: `feed unchanged (${got.reason === 'not-modified' ? '304 Not Modified' : 'same content as the last sync'})`,
      };
    }
    let entries: RolieEntry[];
    let feedUpdated: string | null;
    try {
      const doc: unknown = JSON.parse(await readFile(got.file, 'utf8'));
      entries = rolieEntries(doc);
      const updated = jsonField(jsonField(doc, 'feed'), 'updated');
      feedUpdated = typeof updated === 'string' ? updated : null;
    } catch (e) {
      throw new SyncHttpError(`CSAF: ${errorMessage(e)}`, 200);
    }
    await rm(got.file, { force: true });
    const known = await getDocumentVersions(ctx.store.db, 'csaf');
    const todo = entries.filter((e) => known.get(e.id) !== e.updated);
    let records = 0;
    let files = 0;
    const failures: string[] = [];
    const fail = (entry: RolieEntry, e: unknown) => {
      failures.push(`${entry.id}: ${errorMessage(e)}`);
      ctx.log.warn({ source: 'csaf', advisory: entry.id, error: errorMessage(e) }, 'CSAF document not imported');
    };
    const imported = async (batch: { entry: RolieEntry; file: string }[], n: number) => {
      records += n;
      ctx.addRecords(n);
      files += batch.length;
      // Per-document checkpoint: a rerun fetches only what is still missing.
      for (const d of batch)
        await setDocumentVersion(ctx.store.db, 'csaf', d.entry.id, d.entry.updated, ctx.clock.now());
    };
    for (let i = 0; i < todo.length; i += CSAF_BATCH) {
      const batch: { entry: RolieEntry; file: string }[] = [];
      for (const entry of todo.slice(i, i + CSAF_BATCH)) {
        try {
          const file = path.join(ctx.stagingDir, `${entry.id.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
          await fetchAndRead(ctx, entry.href, { maxResponseBytes: 32 * MiB }, async (res) => {
            await expectOk(res, `CSAF ${entry.id}`);
            return res.saveTo(file);
          });
          batch.push({ entry, file });
        } catch (e) {
          fail(entry, e);
        }
      }
      if (!batch.length) continue;
      try {
        // One pipeline run per batch of documents.
        const r = await ctx.sink.importFiles(
          batch.map((d) => ({ file: d.file, format: 'csaf' as const })),
          { source: 'csaf' },
        );
        await imported(batch, r.records);
      } catch {
        // Find the document that broke the batch: import them one by one, so the others still get in.
        for (const d of batch) {
          try {
            const r = await ctx.sink.importFiles([{ file: d.file, format: 'csaf' }], { source: 'csaf' });
            await imported([d], r.records);
          } catch (e) {
            fail(d.entry, e);
          }
        }
      }
      for (const d of batch) await rm(d.file, { force: true });
    }
    if (failures.length) {
      // The feed's validators are not stored, so the next sync retries exactly the failed documents.
      throw new SyncHttpError(
        `CSAF: ${failures.length} of ${todo.length} new or changed documents failed (first: ${failures[0]}); ${files} imported`,
        null,
      );
    }
    const cursor: CsafCursor = {
      feed: got.validators,
      feed_updated: feedUpdated,
      documents: entries.length,
      fetched_at: ctx.clock.now().toISOString(),
    };
    await ctx.setCursor(cursor);
    return {
      records,
      files,
      summary: `${files} new or changed of ${entries.length} advisories listed, ${records} records`,
    };
  },
};
