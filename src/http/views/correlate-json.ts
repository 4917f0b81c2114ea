// The correlate-cves answer as bytes (decision 49; docs/correlation.md §6). A 200-asset answer can list tens
// of thousands of CVEs (23 MB on the full benchmark corpus); JSON.stringify of that object tree and the Buffer made
// from the string were a third of the call. Here the parts of a CVE entry that do not depend on the asset (the
// card: title, severity, CVSS, BCS, EPSS, KEV, exploit maturity, dates, links; the deciding range) are encoded once
// per cached card and row object and copied into one buffer, taken at the answer's size from a small pool of
// buffers whose answers have been written; only the asset's own parts (status, reason, match, fixed version, rank)
// are encoded per entry. The bytes are what JSON.stringify(assetResult(…)) gives for the same answer
// (test/unit/correlate-json.test.ts compares them on the same data).
import { cardFields, deciding, type AssetAnswer, type Decided } from '../../services/asset-correlation.ts';
import type { RangeRow } from '../../domain/correlate.ts';
import type { ProductMatch } from '../../domain/product-match.ts';
import type { CveCard } from '../../store/ranges.ts';

const enc = (s: string) => Buffer.from(s, 'utf8');
const j = JSON.stringify;

/** The card's parts of an entry (cardFields), encoded: before the status, between the fixed version and the rank, after the rank. */
interface CardParts { head: Buffer; mid: Buffer; tail: Buffer }
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

/**
 * The answer's pieces in order: encoded fragments (Buffers) and JSON text still to encode (strings), with an upper
 * bound of their UTF-8 size (a string's UTF-8 is at most 3 bytes per UTF-16 unit). Collected first, so the buffer is
 * taken once at its size (growing a 23 MB buffer by doubling touched and copied about 40 MB more) and each cached
 * fragment is looked up once.
 */
class Pieces {
  readonly list: (Buffer | string)[] = [];
  bound = 0;
  bytes(b: Buffer): void {
    this.list.push(b);
    this.bound += b.length;
  }
  text(s: string): void {
    this.list.push(s);
    this.bound += 3 * s.length;
  }
  join(out: Buffer): Buffer {
    let at = 0;
    for (const p of this.list) {
      if (typeof p === 'string') at += out.write(p, at, 'utf8');
      else {
        out.set(p, at);
        at += p.length;
      }
    }
    return out.subarray(0, at);
  }
}

function entry(w: Pieces, d: Decided): void {
  const c = cardParts(d.card);
  w.bytes(c.head);
  w.bytes(STATUS[d.v.status]);
  w.text(j(d.v.reason));
  w.bytes(matchPart(d.v.match));
  w.bytes(rangePart(d.v.deciding.row));
  w.text(d.v.fixed_version === null ? 'null' : j(d.v.fixed_version));
  w.bytes(c.mid);
  w.text(d.rank + '');
  w.bytes(c.tail);
}

function asset(w: Pieces, a: AssetAnswer): void {
  const head = j({ asset_id: a.asset.asset_id, vendor: a.asset.vendor, product: a.asset.product, version: a.asset.version, matched_products: a.matched_products, counts: a.counts });
  w.text(`${head.slice(0, -1)},"cves":[`);
  for (let i = 0; i < a.listed.length; i++) {
    if (i) w.bytes(COMMA);
    entry(w, a.listed[i]);
  }
  w.text(a.cves_page ? `],"cves_page":${j(a.cves_page)}}` : ']}');
}

/**
 * Answer buffers whose response has been written, kept for the next answer. A new 23 MB buffer per call is external
 * memory to V8, and it set off a full garbage collection of the whole heap (caches included) every two or three
 * calls. At most POOL_MAX buffers of at most POOL_BYTES together are kept; an answer larger than any kept buffer
 * gets a new one.
 */
const POOL_MAX = 2;
const POOL_BYTES = 64 << 20;
const pool: Buffer[] = [];

function take(n: number): Buffer {
  let best = -1;
  for (let i = 0; i < pool.length; i++) if (pool[i].length >= n && (best < 0 || pool[i].length < pool[best].length)) best = i;
  if (best < 0) return Buffer.allocUnsafe(n);
  return pool.splice(best, 1)[0];
}

function giveBack(b: Buffer): void {
  if (b.length > POOL_BYTES || pool.includes(b)) return;
  pool.push(b);
  // The largest first (they serve any answer), within both bounds.
  pool.sort((x, y) => y.length - x.length);
  let held = 0;
  const keep = pool.filter((x, i) => i < POOL_MAX && (held += x.length) <= POOL_BYTES);
  pool.length = 0;
  pool.push(...keep);
}

/** The answer's bytes, and `release` to call once they are written and no longer read (the reply's 'finish'). */
export interface AnswerBytes { bytes: Buffer; release: () => void }

/** Buffers held for reuse now (tests). */
export const pooledBuffers = (): number => pool.length;

/**
 * The envelope `{api, data, meta}` whose `data.assets` are the answers: `data` is written with `assets` first, then
 * the other fields of `rest` in their order.
 */
export function correlateJson(envelope: { api: unknown; meta: unknown }, assets: readonly AssetAnswer[], rest: Record<string, unknown>): AnswerBytes {
  const w = new Pieces();
  w.text(`{"api":${j(envelope.api)},"data":{"assets":[`);
  for (let i = 0; i < assets.length; i++) {
    if (i) w.bytes(COMMA);
    asset(w, assets[i]);
  }
  const r = j(rest);
  w.text(r === '{}' ? ']}' : `],${r.slice(1)}`);
  w.text(`,"meta":${j(envelope.meta)}}`);
  const buf = take(w.bound);
  let released = false;
  return {
    bytes: w.join(buf),
    release: () => {
      if (released) return;
      released = true;
      giveBack(buf);
    },
  };
}
