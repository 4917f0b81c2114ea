// The CVE Program's record feed: the release archives of github.com/CVEProject/cvelistV5 (docs/sync.md "cve5").
// - The GitHub releases list (newest first) names two kinds of assets: the daily baseline
//   `YYYY-MM-DD_all_CVEs_at_midnight.zip.zip` (every record at 00:00 UTC) and the hourly delta
//   `YYYY-MM-DD_delta_CVEs_at_HHMMZ.zip` (every record new or updated since that day's midnight: deltas are
//   cumulative within their day, so the newest one of a day holds all the others), and, once the day is over, its
//   `YYYY-MM-DD_delta_CVEs_at_end_of_day.zip` (release `cve_YYYY-MM-DD_at_end_of_day`): every record changed that
//   day, the last hour included.
// - First run: the newest baseline, then the newest delta of the same day.
// - Later runs: the newest delta of the checkpoint's day if newer than the one applied; on the next day, the
//   checkpoint day's end-of-day archive and then the new day's newest delta; more than a day behind, the newest
//   baseline and its day's newest delta.
// - Each archive is checked (a zip holding CVE record files) and handed to the pipeline as `cve5-zip`; the
//   checkpoint `{ baseline, delta, published_at }` is written after each archive's import has committed.
// All requests go through the egress policy with the shared retry policy; GitHub's asset downloads answer with a
// redirect to its storage host, which is followed here (at most 3 hops, each one checked by the egress policy).
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { extractInnerZip, inspectCve5Zip } from '../../ingest/cve5-zip.ts';
import { readHead } from '../../ingest/io.ts';
import type { SourceOutcome, SyncContext, SyncSource } from './sync.ts';
import { displayUrl, expectOk, fetchAndRead, jsonField, SyncHttpError } from './sync-http.ts';
import { errorMessage } from '../../lib/errors.ts';

const MiB = 1024 * 1024;
/** Releases asked for per run: 24 hourly releases a day, so the previous day's last delta is still listed. */
export const CVE5_RELEASES_PER_PAGE = 50;
const LIST_MAX_BYTES = 16 * MiB;
/** The baseline was about 0.5 GB in 2026; a delta is a few MB at most. */
export const CVE5_BASELINE_MAX_BYTES = 2048 * MiB;
export const CVE5_DELTA_MAX_BYTES = 512 * MiB;
const DOWNLOAD_TIMEOUT_MS = 60 * 60_000;
const MAX_REDIRECTS = 3;

const BASELINE_NAME = /^(\d{4}-\d{2}-\d{2})_all_CVEs_at_midnight\.zip\.zip$/;
const DELTA_NAME = /^(\d{4}-\d{2}-\d{2})_delta_CVEs_at_(\d{2})(\d{2})Z\.zip$/;
const END_OF_DAY_NAME = /^(\d{4}-\d{2}-\d{2})_delta_CVEs_at_end_of_day\.zip$/;
/** The order key of a day's end-of-day archive: after its last hourly delta (2300Z), before the next day. */
const END_OF_DAY = '2400';

export interface Cve5Cursor {
  /** The baseline asset last imported. */
  baseline: string;
  /** The delta asset last imported after it (null: none yet). */
  delta: string | null;
  /** `published_at` of the release of the last asset imported. */
  published_at: string | null;
  fetched_at: string;
  /** ETag of the releases list when the last run ended with everything listed imported (conditional GET). */
  list_etag?: string | null;
}

export interface Cve5Asset {
  name: string;
  kind: 'baseline' | 'delta';
  /** YYYY-MM-DD (UTC) the archive belongs to. */
  day: string;
  /** Orders the assets: `day` for a baseline (midnight), `dayTHHMM` for a delta; a day's deltas sort after its baseline. */
  key: string;
  url: string;
  size: number | null;
  published_at: string | null;
}

/** An asset name → what it is; null for any other asset. */
export function parseAssetName(name: string): Pick<Cve5Asset, 'kind' | 'day' | 'key'> | null {
  const b = BASELINE_NAME.exec(name);
  if (b) return { kind: 'baseline', day: b[1], key: b[1] };
  const d = DELTA_NAME.exec(name);
  if (d) return { kind: 'delta', day: d[1], key: `${d[1]}T${d[2]}${d[3]}` };
  const e = END_OF_DAY_NAME.exec(name);
  if (e) return { kind: 'delta', day: e[1], key: `${e[1]}T${END_OF_DAY}` };
  return null;
}

const numberOrNull = (x: unknown) => (typeof x === 'number' ? x : null);
const stringOrNull = (x: unknown) => (typeof x === 'string' ? x : null);

/** The baseline and delta assets of a GitHub releases list, each name once (newest release first wins). */
export function releaseAssets(doc: unknown): Cve5Asset[] {
  if (!Array.isArray(doc)) throw new Error('the releases list is not a JSON array');
  const out = new Map<string, Cve5Asset>();
  const releases: unknown[] = doc;
  for (const rel of releases) {
    const relAssets: unknown = jsonField(rel, 'assets');
    if (!Array.isArray(relAssets)) continue;
    const relPublished = jsonField(rel, 'published_at');
    const published = typeof relPublished === 'string' ? relPublished : null;
    const assets: unknown[] = relAssets;
    for (const a of assets) {
      const n = jsonField(a, 'name');
      const name = typeof n === 'string' ? n : '';
      const u = jsonField(a, 'browser_download_url');
      const url = typeof u === 'string' ? u : '';
      const parsed = parseAssetName(name);
      if (!parsed || !url || out.has(name)) continue;
      out.set(name, {
        name,
        ...parsed,
        url,
        size: numberOrNull(jsonField(a, 'size')),
        published_at: published ?? stringOrNull(jsonField(a, 'updated_at')),
      });
    }
  }
  return [...out.values()];
}

const nextDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * The archives to import, oldest first, given the listed assets and the checkpoint:
 * - no checkpoint: the newest baseline, then the newest delta of its day;
 * - the newest listed day is the checkpoint's day: its newest delta, when newer than the checkpoint;
 * - the newest listed day is the next day: the checkpoint day's end-of-day archive (its newest delta, when not yet
 *   applied), then the new day's newest delta. Until the end-of-day archive is listed (it is published just after
 *   midnight), only the checkpoint day's newest hourly delta is taken and the new day waits: the hourly deltas of
 *   the new day start from midnight, so skipping to them would lose the last hour of the day before;
 * - further behind: the newest baseline, then the newest delta of its day.
 */
export function planCve5(
  assets: readonly Cve5Asset[],
  cursor: Pick<Cve5Cursor, 'baseline' | 'delta'> | null,
): Cve5Asset[] {
  const newestOf = (list: Cve5Asset[]) =>
    list.reduce<Cve5Asset | null>((best, a) => (!best || a.key > best.key ? a : best), null);
  const baselines = assets.filter((a) => a.kind === 'baseline');
  const deltas = assets.filter((a) => a.kind === 'delta');
  const newestDelta = (day: string, after = '') => newestOf(deltas.filter((d) => d.day === day && d.key > after));
  const fromBaseline = (): Cve5Asset[] => {
    const b = newestOf(baselines);
    if (!b)
      throw new SyncHttpError(
        'CVE5: no baseline (YYYY-MM-DD_all_CVEs_at_midnight.zip.zip) among the listed releases',
        null,
      );
    const d = newestDelta(b.day);
    return d ? [b, d] : [b];
  };
  if (!cursor) return fromBaseline();
  const at = parseAssetName(cursor.delta ?? cursor.baseline);
  if (!at)
    throw new Error(
      `CVE5: the checkpoint names "${cursor.delta ?? cursor.baseline}", which is no cvelistV5 asset; fix or delete the sync_state row for cve5`,
    );
  const newestDay = assets.reduce((max, a) => (a.day > max ? a.day : max), '');
  if (!newestDay || newestDay <= at.day) {
    const d = newestDelta(at.day, at.key);
    return d ? [d] : [];
  }
  if (newestDay === nextDay(at.day)) {
    const plan: Cve5Asset[] = [];
    const last = newestDelta(at.day, at.key);
    if (last) plan.push(last);
    const dayClosed = (last ?? at).key === `${at.day}T${END_OF_DAY}`;
    if (!dayClosed) return plan;
    const today = newestDelta(newestDay);
    if (today) plan.push(today);
    return plan;
  }
  return fromBaseline();
}

/** GET following redirects (GitHub asset downloads answer 302 to their storage host); each hop goes through egress. */
async function download(ctx: SyncContext, url: string, dest: string, maxBytes: number, what: string): Promise<number> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const got = await fetchAndRead(
      ctx,
      current,
      { headers: { accept: 'application/octet-stream' }, maxResponseBytes: maxBytes, timeoutMs: DOWNLOAD_TIMEOUT_MS },
      async (res) => {
        if ([301, 302, 303, 307, 308].includes(res.status) && res.headers.location) {
          await res.discard();
          if (hop >= MAX_REDIRECTS)
            throw new SyncHttpError(
              `${what}: more than ${MAX_REDIRECTS} redirects from ${displayUrl(url)}`,
              res.status,
            );
          return { location: res.headers.location };
        }
        await expectOk(res, what);
        return { bytes: await res.saveTo(dest) };
      },
    );
    if (got.location === undefined) return got.bytes;
    current = new URL(got.location, current).toString();
  }
}

export const cve5Source: SyncSource = {
  name: 'cve5',
  async run(ctx: SyncContext): Promise<SourceOutcome> {
    const previous = await ctx.getCursor<Cve5Cursor>();
    const listUrl = new URL(ctx.urls.cve5);
    listUrl.searchParams.set('per_page', String(CVE5_RELEASES_PER_PAGE));
    const headers: Record<string, string> = { accept: 'application/vnd.github+json' };
    if (previous?.list_etag) headers['if-none-match'] = previous.list_etag;
    const list = await fetchAndRead(
      ctx,
      listUrl.toString(),
      { headers, maxResponseBytes: LIST_MAX_BYTES },
      async (res) => {
        if (res.status === 304) {
          await res.discard();
          return null;
        }
        await expectOk(res, 'CVE5 releases list');
        return { etag: res.headers.etag ?? null, body: await res.bytes() };
      },
    );
    if (!list) {
      return {
        records: 0,
        files: 0,
        summary: `unchanged (releases list 304 Not Modified; at ${previous?.delta ?? previous?.baseline})`,
      };
    }
    const listEtag = list.etag;
    let assets: Cve5Asset[];
    try {
      assets = releaseAssets(JSON.parse(list.body.toString('utf8')));
    } catch (e) {
      throw new SyncHttpError(`CVE5: ${displayUrl(listUrl.toString())}: ${errorMessage(e)}`, 200);
    }
    const plan = planCve5(assets, previous);
    let cursor: Cve5Cursor | null = previous;
    if (!plan.length) {
      // Nothing new; remember the list's ETag so the next run can be answered with a 304.
      if (previous && listEtag !== (previous.list_etag ?? null))
        await ctx.setCursor({ ...previous, list_etag: listEtag });
      return { records: 0, files: 0, summary: `unchanged (at ${previous?.delta ?? previous?.baseline})` };
    }
    let records = 0;
    for (const [i, asset] of plan.entries()) {
      const max = asset.kind === 'baseline' ? CVE5_BASELINE_MAX_BYTES : CVE5_DELTA_MAX_BYTES;
      const what = `CVE5 ${asset.name}`;
      if (asset.size !== null && asset.size > max)
        throw new SyncHttpError(`${what}: listed as ${asset.size} bytes, over the ${max}-byte cap`, null);
      const file = path.join(ctx.stagingDir, asset.name);
      const bytes = await download(ctx, asset.url, file, max, what);
      let toImport = file;
      try {
        const head = await readHead(file, 64);
        if (!head.startsWith('PK\u0003\u0004')) {
          throw new Error(
            `${asset.name}: not a zip archive (${bytes} bytes, starting with ${JSON.stringify(head.replace(/[^\x20-\x7e]/g, '.').slice(0, 40))})`,
          );
        }
        const contents = await inspectCve5Zip(file, asset.name);
        if (asset.kind === 'baseline') {
          if (!contents.innerZip) throw new Error(`${asset.name}: no cves.zip entry (not a cvelistV5 baseline)`);
          // The inner zip is read from the staging directory rather than the system's temporary one.
          toImport = await extractInnerZip(file, path.join(ctx.stagingDir, 'cves.zip'), asset.name);
          await rm(file, { force: true });
        } else if (!contents.records) {
          throw new Error(`${asset.name}: no CVE record files (deltaCves/CVE-….json)`);
        }
      } catch (e) {
        throw new SyncHttpError(`CVE5: ${errorMessage(e)}`, 200);
      }
      const imported = await ctx.sink.importFiles([{ file: toImport, format: 'cve5-zip' }], { source: 'cve5' });
      await rm(toImport, { force: true });
      records += imported.records;
      ctx.addRecords(imported.records);
      // Checkpoint only after the import committed. The list's ETag is kept only once the whole plan is in.
      cursor = {
        baseline: asset.kind === 'baseline' ? asset.name : (cursor?.baseline ?? asset.name),
        delta: asset.kind === 'delta' ? asset.name : null,
        published_at: asset.published_at,
        fetched_at: ctx.clock.now().toISOString(),
        list_etag: i === plan.length - 1 ? listEtag : null,
      };
      await ctx.setCursor(cursor);
    }
    return { records, files: plan.length, summary: `${records} records from ${plan.map((a) => a.name).join(', ')}` };
  },
};
