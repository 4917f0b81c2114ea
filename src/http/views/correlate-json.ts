// The correlate-cves answer as bytes, streamed (ADRs 0049 and 0051; docs/correlation.md §6). A 200-asset answer
// can list tens of thousands of CVEs (23 MB on the full benchmark corpus; gigabytes when every asset names a large
// product family); JSON.stringify of that object tree and the Buffer made from the string were a third of the call.
// Here the parts of a CVE entry that do not depend on the asset (the card: title, severity, CVSS, BCS, EPSS, KEV,
// exploit maturity, dates, links; the deciding range) are encoded once per cached card and row object and copied;
// only the asset's own parts (status, reason, match, fixed version, rank) are encoded per entry. The bytes go into
// fixed-size chunks (the first ones of an answer from a pool of chunks whose responses have been written), and each
// chunk is handed to the response as it fills, while the next assets are decided: an answer is never held whole.
// The bytes are what JSON.stringify(assetResult(…)) gives for the same answer (test/unit/correlate-json.test.ts
// compares them on the same data).
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { cardFields, deciding, type AssetAnswer, type Decided } from '../../services/correlation-answer.ts';
import type { RangeRow } from '../../domain/correlate.ts';
import type { ProductMatch } from '../../domain/product-match.ts';
import type { CveCard } from '../../store/ranges.ts';

const enc = (s: string) => Buffer.from(s, 'utf8');
const j = JSON.stringify;

/** The card's parts of an entry (cardFields), encoded: before the status, between the fixed version and the rank, after the rank. */
interface CardParts {
  head: Buffer;
  mid: Buffer;
  tail: Buffer;
}
const CARD = new WeakMap<CveCard, CardParts>();
function cardParts(c: CveCard): CardParts {
  let p = CARD.get(c);
  if (p) return p;
  const f = cardFields(c);
  p = {
    head: enc(`${j(f.head).slice(0, -1)},"status":`),
    mid: enc(`,${j(f.mid).slice(1, -1)},"priority_rank":`),
    tail: enc(`,${j(f.tail).slice(1)}`),
  };
  CARD.set(c, p);
  return p;
}

/** `,"range":{…},"fixed_version":` for a deciding row (one per cached row object). */
const RANGE = new WeakMap<RangeRow, Buffer>();
function rangePart(row: RangeRow): Buffer {
  let b = RANGE.get(row);
  if (!b) RANGE.set(row, (b = enc(`,"range":${j(deciding(row))},"fixed_version":`)));
  return b;
}

/** `,"match":{…}` (one per match object: an asset's rows of one product share it). */
const MATCH = new WeakMap<ProductMatch, Buffer>();
function matchPart(m: ProductMatch): Buffer {
  let b = MATCH.get(m);
  if (!b) MATCH.set(m, (b = enc(`,"match":${j(m)}`)));
  return b;
}

const COMMA = enc(',');
const STATUS = {
  affected: enc('"affected","reason":'),
  not_affected: enc('"not_affected","reason":'),
  needs_review: enc('"needs_review","reason":'),
};

/** The size of a chunk of the answer. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks kept for reuse at most (bytes): about two of the largest common answers (23 MB on the full corpus). */
const POOL_BYTES = 64 << 20;
/**
 * Chunks of one answer that go back to the pool when its response is written: the first ones, up to this many
 * bytes. Past them an answer takes new chunks and holds no reference to them, so an answer of gigabytes (200 assets
 * that each name a large product family) is never held whole: each chunk is garbage once the socket has sent it.
 */
const TRACKED_BYTES = POOL_BYTES / 2;
/**
 * Chunks whose response has been written, kept for the next answers. A new buffer per answer is external memory to
 * V8: new 23 MB answers set off a full garbage collection of the whole heap (caches included) every two or three
 * calls.
 */
const pool: Buffer[] = [];

/**
 * Writes an answer into chunks and hands out what was written in slices (`take`). The chunks this writer tracks go
 * back to the pool only at `release`, once the response has been written and its slices are no longer read.
 */
export class AnswerWriter {
  private cur: Buffer;
  /** Where the next byte goes in `cur`, and where the part of `cur` not yet handed out starts. */
  private at = 0;
  private from = 0;
  /** The chunks this writer took from the pool or made while under TRACKED_BYTES (given back at release). */
  private readonly chunks: Buffer[] = [];
  /** Slices of filled chunks, not yet handed out. */
  private filled: Buffer[] = [];
  private released = false;

  constructor() {
    this.cur = this.chunk();
  }

  private chunk(): Buffer {
    if ((this.chunks.length + 1) * CHUNK_BYTES > TRACKED_BYTES) return Buffer.allocUnsafeSlow(CHUNK_BYTES);
    const c = pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this.chunks.push(c);
    return c;
  }

  /** The current chunk is full: its part not yet handed out waits in `filled`, and a new chunk is taken. */
  private roll(): void {
    if (this.at > this.from) this.filled.push(this.cur.subarray(this.from, this.at));
    this.cur = this.chunk();
    this.at = 0;
    this.from = 0;
  }

  bytes(b: Buffer): void {
    if (b.length <= CHUNK_BYTES - this.at) {
      this.cur.set(b, this.at);
      this.at += b.length;
      return;
    }
    for (let off = 0; off < b.length;) {
      if (this.at === CHUNK_BYTES) this.roll();
      const n = Math.min(b.length - off, CHUNK_BYTES - this.at);
      this.cur.set(b.subarray(off, off + n), this.at);
      this.at += n;
      off += n;
    }
  }

  /** JSON text (its UTF-8 is at most 3 bytes per UTF-16 unit: written in place when that fits). */
  text(s: string): void {
    if (3 * s.length <= CHUNK_BYTES - this.at) this.at += this.cur.write(s, this.at, 'utf8');
    else this.bytes(enc(s));
  }

  /** Whether whole chunks wait to be handed out. */
  get full(): boolean {
    return this.filled.length > 0;
  }

  /** The filled chunks (their parts not yet handed out), in order; what the current chunk holds waits. */
  takeFilled(): Buffer[] {
    const out = this.filled;
    this.filled = [];
    return out;
  }

  /** Everything written since the last take, in order. */
  take(): Buffer[] {
    const out = this.filled;
    this.filled = [];
    if (this.at > this.from) {
      out.push(this.cur.subarray(this.from, this.at));
      this.from = this.at;
    }
    return out;
  }

  /** Gives the chunks back to the pool (once; call it when the response is written). */
  release(): void {
    if (this.released) return;
    this.released = true;
    for (const c of this.chunks) if ((pool.length + 1) * CHUNK_BYTES <= POOL_BYTES) pool.push(c);
  }
}

/** Chunks held for reuse now (tests). */
export const pooledChunks = (): number => pool.length;

function entry(w: AnswerWriter, d: Decided, decisions?: AssetAnswer['decisions']): void {
  const c = cardParts(d.card);
  w.bytes(c.head);
  w.bytes(STATUS[d.v.status]);
  w.text(j(d.v.reason));
  w.bytes(matchPart(d.v.match));
  w.bytes(rangePart(d.v.deciding.row));
  w.text(d.v.fixed_version === null ? 'null' : j(d.v.fixed_version));
  w.bytes(c.mid);
  w.text(d.rank + '');
  if (decisions) {
    w.text(`,"decision":${j(decisions.marks.get(d.cve_id) ?? null)}`);
    const stated = decisions.stated.get(d.cve_id);
    if (stated) w.text(`,"vendor_statements":${j(stated)}`);
  }
  w.bytes(c.tail);
}

/** One asset's answer; whole chunks are handed out as they fill (a large asset's list is megabytes). */
function* asset(w: AnswerWriter, a: AssetAnswer): Generator<Buffer> {
  const head = j({
    asset_id: a.asset.asset_id,
    vendor: a.asset.vendor,
    product: a.asset.product,
    version: a.asset.version,
    matched_products: a.matched_products,
    counts: a.counts,
    ...(a.decisions ? { decision_counts: a.decisions.counts } : {}),
  });
  w.text(`${head.slice(0, -1)},"cves":[`);
  for (let i = 0; i < a.listed.length; i++) {
    if (i) w.bytes(COMMA);
    entry(w, a.listed[i], a.decisions);
    if (w.full) yield* w.takeFilled();
  }
  w.text(a.cves_page ? `],"cves_page":${j(a.cves_page)}}` : ']}');
}

/** Work done between two turns of the event loop at most (ms): other requests are served in between. */
const SLICE_MS = 10;

/**
 * The envelope `{api, data, meta}` whose `data.assets` are the `count` answers, taken in order as they are written
 * (`answer(i)`, called once each); `data` goes on with the fields `rest()` gives, in their order, and `meta()` is
 * called last, so timings in it cover the whole answer. The writer's chunks are released by the caller once the
 * response is written.
 */
export async function* correlateBody(
  w: AnswerWriter,
  api: unknown,
  count: number,
  answer: (i: number) => AssetAnswer,
  rest: () => Record<string, unknown>,
  meta: () => unknown,
  pagination?: unknown,
): AsyncGenerator<Buffer> {
  w.text(`{"api":${j(api)},"data":{"assets":[`);
  let slice = performance.now();
  for (let i = 0; i < count; i++) {
    if (i) w.bytes(COMMA);
    yield* asset(w, answer(i));
    if (performance.now() - slice >= SLICE_MS) {
      await yieldToLoop();
      slice = performance.now();
    }
  }
  const r = j(rest());
  w.text(r === '{}' ? ']}' : `],${r.slice(1)}`);
  if (pagination !== undefined) w.text(`,"pagination":${j(pagination)}`);
  w.text(`,"meta":${j(meta())}}`);
  yield* w.take();
}

/**
 * The answer's chunks; when writing them fails after the headers went out (a defect: the database was read before),
 * `fail` gives the call's charged checks back, then the error goes on and the response is cut short. A client
 * that leaves early ends the stream without an error: its call was served.
 */
export async function* refundOnError(body: AsyncGenerator<Buffer>, fail: () => Promise<void>): AsyncGenerator<Buffer> {
  try {
    yield* body;
  } catch (err) {
    await fail().catch(() => undefined);
    throw err;
  }
}
