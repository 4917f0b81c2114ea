// NVD CVE API 2.0, incremental by lastModified (docs/sync.md "NVD").
// - First run (no checkpoint): pages through the whole corpus without a date filter, then remembers the time the
//   run started as `last_mod_end` (NVD's own "initial population, then lastMod updates" workflow).
// - Later runs: windows [last_mod_end, now] cut into ranges of at most 120 days (the API's limit), each paged
//   with startIndex / resultsPerPage=2000.
// - The checkpoint (window + next startIndex) is written after every page the pipeline has committed, so a run
//   that stops resumes at the next page. A page may be imported twice after a crash between commit and
//   checkpoint; imports are idempotent upserts, so that changes nothing.
// - Rate limit: NVD allows 5 requests per rolling 30 s without an API key and 50 with one; the limiter keeps to
//   that, and 403/429/503 are retried with backoff (sync-http.ts).
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourceOutcome, SyncContext, SyncSource } from './sync.ts';
import { displayUrl, expectOk, fetchAndRead, jsonField, RollingWindowLimiter, SyncHttpError } from './sync-http.ts';

export const NVD_MAX_WINDOW_MS = 120 * 24 * 3600 * 1000;
export const NVD_RATE_WINDOW_MS = 30_000;
export const NVD_RATE_LIMIT_PUBLIC = 5;
export const NVD_RATE_LIMIT_WITH_KEY = 50;
/** A 2,000-record page is 10–40 MB of JSON. */
const NVD_PAGE_MAX_BYTES = 256 * 1024 * 1024;

export interface NvdCursor {
  /** Every record modified up to this instant has been imported. */
  last_mod_end?: string;
  /** The window being paged when the last run stopped inside it (start null = the initial full pull). */
  window?: { start: string | null; end: string };
  /** Next startIndex inside `window`. */
  start_index?: number;
}

/** NVD's extended ISO-8601 form without a zone, which the API reads as UTC (as its own timestamps are written). */
export function nvdDate(d: Date): string {
  return d.toISOString().replace(/Z$/, '');
}

/** Reads a stored NVD instant (no zone = UTC); a value that is not a date fails loudly rather than skip the sync. */
export function parseNvdDate(value: string): Date {
  const d = new Date(/(?:[zZ]|[+-]\d\d:\d\d)$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(d.getTime()))
    throw new Error(
      `NVD: the checkpoint holds "${value}", which is not a date; fix or delete the sync_state row for nvd`,
    );
  return d;
}

interface NvdPage {
  totalResults: number;
  vulnerabilities: unknown[];
  /** When NVD made the page (its own clock, UTC without a zone). */
  timestamp: unknown;
}

/** The page's `timestamp` as a Date, or null when absent or not a date. */
function pageTime(page: NvdPage): Date | null {
  if (typeof page.timestamp !== 'string') return null;
  const d = new Date(/(?:[zZ]|[+-]\d\d:\d\d)$/.test(page.timestamp) ? page.timestamp : `${page.timestamp}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

function validatePage(doc: unknown, requestedStart: number, url: string): NvdPage {
  const totalResults = jsonField(doc, 'totalResults');
  const vulnerabilities: unknown = jsonField(doc, 'vulnerabilities');
  if (typeof totalResults !== 'number' || !Array.isArray(vulnerabilities)) {
    throw new SyncHttpError(
      `NVD: ${displayUrl(url)} did not return an API 2.0 page (no totalResults / vulnerabilities)`,
      200,
    );
  }
  const format = jsonField(doc, 'format');
  if (format !== undefined && format !== 'NVD_CVE') {
    throw new SyncHttpError(
      `NVD: unexpected page format "${typeof format === 'string' ? format : JSON.stringify(format)}" (expected NVD_CVE)`,
      200,
    );
  }
  const startIndex = jsonField(doc, 'startIndex');
  if (typeof startIndex === 'number' && startIndex !== requestedStart) {
    throw new SyncHttpError(`NVD: asked for startIndex ${requestedStart}, got ${startIndex}`, 200);
  }
  const items: unknown[] = vulnerabilities;
  return { totalResults, vulnerabilities: items, timestamp: jsonField(doc, 'timestamp') };
}

export const nvdSource: SyncSource = {
  name: 'nvd',
  async run(ctx: SyncContext): Promise<SourceOutcome> {
    const limiter = new RollingWindowLimiter(
      ctx.nvdApiKey ? NVD_RATE_LIMIT_WITH_KEY : NVD_RATE_LIMIT_PUBLIC,
      NVD_RATE_WINDOW_MS,
      ctx.clock,
      ctx.sleep,
    );
    const http = { ...ctx, limiter };
    const headers: Record<string, string> = ctx.nvdApiKey ? { apiKey: ctx.nvdApiKey } : {};
    let cursor: NvdCursor = (await ctx.getCursor<NvdCursor>()) ?? {};
    let records = 0;
    let pages = 0;
    let windows = 0;

    /**
     * Pages through a window; answers where the window really ends: its `end`, or NVD's own time of the first page
     * when that is earlier. This machine's clock may run ahead of NVD's: a window asked up to a local "now" that
     * NVD has not reached yet holds nothing modified after NVD's now, and the next window would start after it, so
     * what NVD changes in between would be skipped for good.
     */
    const pageWindow = async (window: { start: string | null; end: string }, from: number): Promise<string> => {
      let startIndex = from;
      let served: Date | null = null;
      const end = () =>
        served && served.getTime() < parseNvdDate(window.end).getTime() ? nvdDate(served) : window.end;
      for (;;) {
        const params = new URLSearchParams({ resultsPerPage: String(ctx.nvdPageSize), startIndex: String(startIndex) });
        if (window.start !== null) {
          params.set('lastModStartDate', window.start);
          params.set('lastModEndDate', window.end);
        }
        const url = `${ctx.urls.nvd}?${params.toString()}`;
        const body = await fetchAndRead(http, url, { headers, maxResponseBytes: NVD_PAGE_MAX_BYTES }, async (res) => {
          await expectOk(res, 'NVD');
          return res.bytes();
        });
        let doc: unknown;
        try {
          doc = JSON.parse(body.toString('utf8'));
        } catch {
          throw new SyncHttpError(`NVD: ${displayUrl(url)} returned a body that is not JSON`, 200);
        }
        const page = validatePage(doc, startIndex, url);
        served ??= pageTime(page);
        const n = page.vulnerabilities.length;
        if (n === 0 && startIndex < page.totalResults) {
          // Ending the window here would skip the rest of it for good; the checkpoint stays at this page.
          throw new SyncHttpError(
            `NVD: ${displayUrl(url)} answered an empty page at startIndex ${startIndex} of ${page.totalResults} results; the next sync resumes at this page`,
            200,
          );
        }
        if (n > 0) {
          const file = path.join(ctx.stagingDir, `nvd-page-${pages}.json`);
          await writeFile(file, body);
          const imported = await ctx.sink.importFiles([{ file, format: 'nvd-page' }], { source: 'nvd' });
          await rm(file, { force: true });
          records += imported.records;
          ctx.addRecords(imported.records);
          pages++;
        }
        startIndex += n;
        const done = n === 0 || startIndex >= page.totalResults;
        if (done) return end();
        cursor = { ...cursor, window, start_index: startIndex };
        await ctx.setCursor(cursor);
      }
    };

    const now = ctx.clock.now();
    // Resume a window left unfinished by an earlier run.
    if (cursor.window) {
      const reached = await pageWindow(cursor.window, cursor.start_index ?? 0);
      cursor = { last_mod_end: reached };
      await ctx.setCursor(cursor);
      windows++;
    }
    let lastModEnd = cursor.last_mod_end;
    if (!lastModEnd) {
      const window = { start: null, end: nvdDate(now) };
      cursor = { window, start_index: 0 };
      await ctx.setCursor(cursor);
      lastModEnd = await pageWindow(window, 0);
      cursor = { last_mod_end: lastModEnd };
      await ctx.setCursor(cursor);
      windows++;
    }
    let from = parseNvdDate(lastModEnd);
    while (from.getTime() < now.getTime()) {
      const end = new Date(Math.min(from.getTime() + NVD_MAX_WINDOW_MS, now.getTime()));
      const window = { start: nvdDate(from), end: nvdDate(end) };
      cursor = { last_mod_end: cursor.last_mod_end, window, start_index: 0 };
      const reached = await pageWindow(window, 0);
      cursor = { last_mod_end: reached };
      await ctx.setCursor(cursor);
      windows++;
      // NVD's clock is behind this one: the window ended at NVD's now, so there is nothing later to ask for.
      if (reached !== window.end) break;
      from = end;
    }
    return {
      records,
      files: pages,
      summary: records
        ? `${records} records in ${pages} pages (${windows} windows), up to ${cursor.last_mod_end}`
        : `no records modified since the last sync (up to ${cursor.last_mod_end})`,
    };
  },
};
