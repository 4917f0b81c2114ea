// The inputs of an import: the files under the given paths with their detected formats, in the order that keeps
// the work minimal, each read in line or on a feed thread (feed-thread.ts: a large file alone, a run of MSRC months
// on one shared thread), with their threads started early (openInputs) and ended with the run (closeInputs); and
// the reading of one input's first item, where a file that is no feed is told apart (openItems). The live sync
// builds its inputs itself (PipelineInput) and hands them to runPipeline.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { detectFile, readFeed, unrecognisedReason } from './detect.ts';
import { FeedThreadReader, readsOnThread, readsRunOnThread } from './feed-thread.ts';
import { FeedFormatError, type FeedFormat, type IngestItem } from './types.ts';
import { errorCode, errorMessage } from '../lib/errors.ts';

export interface PipelineInput {
  /** A file path or a feed URL, for progress and errors. */
  label: string;
  format: FeedFormat;
  items: () => AsyncIterable<IngestItem>;
  /** Releases what reading may still hold once the run ends (a feed thread shared with the inputs after it). */
  close?: () => Promise<void>;
  /** Starts reading ahead now (a feed thread), before the run asks for the items. */
  prime?: () => void;
  /** The file's size as stored, when known: how far ahead of the run its thread is started (primeAhead). */
  bytes?: number;
}

/**
 * How much input (file sizes as stored) may lie between the input the run is at and a feed thread's first input for
 * that thread to be started already. Everything before the snapshot's CVE records and MSRC months is well inside it,
 * so their threads start with the import; a thread behind a large corpus (the 367k benchmark's 691 MB of NVD pages)
 * starts when the run comes near it, instead of holding its read-ahead and its heap through the whole corpus (the
 * benchmark's import peaks at 1.21 GB with every thread started at once, 942 MB without; docs/benchmarks.md
 * "Import").
 */
export const PRIME_AHEAD_BYTES = 64 << 20;

/**
 * Starts the feed threads of the inputs from `from` on whose files lie within PRIME_AHEAD_BYTES of it (the input at
 * `from` included; an input of unknown size counts as within). prime() is idempotent, so the run calls this as it
 * opens each input.
 */
export function primeAhead(inputs: readonly PipelineInput[], from: number, window = PRIME_AHEAD_BYTES): void {
  let before = 0;
  for (let i = from; i < inputs.length && before <= window; i++) {
    inputs[i].prime?.();
    before += inputs[i].bytes ?? 0;
  }
}

/** Order that keeps work minimal: catalogs first, then EPSS, then CVE sources (NVD before the rest). */
const FORMAT_ORDER: FeedFormat[] = [
  'cwe-xml',
  'capec-stix',
  'epss-csv',
  'epss-ssv',
  'nvd-record',
  'nvd-page',
  'cve5',
  'cve5-jsonl',
  'cve5-zip',
  'csaf',
  'csaf-jsonl',
  'msrc-index',
  'msrc-cvrf',
  'kev',
];

/** Files under the given paths (directories recursively, sorted), with their detected formats. */
export async function collectInputs(paths: string[]): Promise<CollectedInputs> {
  const files: string[] = [];
  const skipped: { label: string; reason: string }[] = [];
  const walk = async (p: string, given: boolean): Promise<void> => {
    let st;
    try {
      st = await stat(p);
    } catch (e) {
      // A path given on the command line must exist; inside a folder, a dangling or looping link is skipped.
      if (given) throw e;
      skipped.push({ label: p, reason: `cannot be read (${errorCode(e) ?? errorMessage(e)})` });
      return;
    }
    if (st.isDirectory()) {
      for (const e of (await readdir(p)).sort()) if (!e.startsWith('.')) await walk(path.join(p, e), false);
    } else if (st.isFile()) files.push(p);
  };
  for (const p of paths) await walk(path.resolve(p), true);
  const found: { path: string; format: FeedFormat; bytes: number }[] = [];
  for (const f of files) {
    const { format, head } = await detectFile(f);
    if (!format) skipped.push({ label: f, reason: unrecognisedReason(head) });
    else found.push({ path: f, format, bytes: (await stat(f)).size });
  }
  found.sort((a, b) => FORMAT_ORDER.indexOf(a.format) - FORMAT_ORDER.indexOf(b.format) || a.path.localeCompare(b.path));
  const inputs: PipelineInput[] = [];
  for (let i = 0; i < found.length;) {
    // A large file alone on a feed thread, or a run of smaller files of one format (in import order), read on one
    // shared thread when the run is worth it, else in line.
    const alone = readsOnThread(found[i].format, found[i].bytes);
    let j = i + 1;
    if (!alone)
      while (j < found.length && found[j].format === found[i].format && !readsOnThread(found[j].format, found[j].bytes))
        j++;
    const run = found.slice(i, j);
    if (
      alone ||
      readsRunOnThread(
        found[i].format,
        run.length,
        run.reduce((n, f) => n + f.bytes, 0),
      )
    ) {
      const reader = new FeedThreadReader(run.map(({ path: p, format }) => ({ path: p, format })));
      const close = () => reader.close();
      const prime = () => reader.prime();
      run.forEach((f, k) =>
        inputs.push({ label: f.path, format: f.format, items: () => reader.items(k), close, prime, bytes: f.bytes }),
      );
    } else {
      for (const { path: f, format, bytes } of run)
        inputs.push({ label: f, format, items: () => readFeed(f, format), bytes });
    }
    i = j;
  }
  return { inputs, skipped };
}

/**
 * A file's items, read from the first one. With `skipRefused`, a file that looked like a feed but is none (its
 * reader refuses it with a FeedFormatError before its first item) is `{ refused }`: it is skipped with a warning
 * like a file of unknown content, and the rest imports. A feed that breaks after items were read still stops it.
 */
export async function openItems(
  input: PipelineInput,
  skipRefused: boolean,
): Promise<AsyncIterable<IngestItem> | { refused: string }> {
  const it = input.items()[Symbol.asyncIterator]();
  let first: IteratorResult<IngestItem>;
  try {
    first = await it.next();
  } catch (e) {
    if (skipRefused && e instanceof FeedFormatError) return { refused: e.message };
    throw e;
  }
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* { [Symbol.asyncIterator]: () => it };
  })();
}

/** Ends what the inputs' reading holds (their feed threads). */
export async function closeInputs(inputs: readonly PipelineInput[]): Promise<void> {
  await Promise.all([...new Set(inputs.map((i) => i.close).filter((c) => c !== undefined))].map((c) => c()));
}

/** Files collected for an import (collectInputs), their feed threads started. */
export interface CollectedInputs {
  inputs: PipelineInput[];
  skipped: { label: string; reason: string }[];
}

/**
 * collectInputs, then each feed thread started (PipelineInput.prime): a caller that collects before it opens the
 * database (`vulnintel import`) lets the threads start and read ahead meanwhile. Hand the result to importPaths,
 * or to closeInputs when the import does not run.
 */
export async function openInputs(paths: string[]): Promise<CollectedInputs> {
  const collected = await collectInputs(paths);
  primeAhead(collected.inputs, 0);
  return collected;
}
