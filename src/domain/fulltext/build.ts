// Builds the in-memory full-text index (domain/fulltext/query.ts; its layout: ADR 0105) from the stored search
// vectors, in ordinal order.
import { eachLexeme, lexemeContribution } from './tsvector.ts';
import { FullTextIndex, LAST_POSITION, POSITION_BLOCK } from './query.ts';

/** Per-document sort keys of the index (ordinal order = published_at DESC NULLS LAST, cve_id DESC). */
export interface IndexedDoc {
  cveId: string;
  /** The stored search vector as text. */
  search: string;
  cvss: number | null;
  epss: number | null;
  /** Position of the CVE in `ORDER BY cve_id DESC` (the database's collation). */
  idRank: number;
}

type Typed = Int32Array | Uint32Array | Uint16Array;

/** The largest chunk of a builder column, in entries (64 MiB of Int32: the allocator maps it, and returns it when freed). */
const MAX_CHUNK = 1 << 24;

/**
 * An append-only column in chunks that grow from 4,096 entries to MAX_CHUNK: growing never copies, and what is
 * allocated past the end is at most one chunk.
 */
class Column<T extends Typed> {
  readonly chunks: T[] = [];
  n = 0;
  private cur: T;
  private at = 0;
  constructor(private readonly make: (n: number) => T) {
    this.cur = make(4096);
    this.chunks.push(this.cur);
  }
  push(v: number) {
    if (this.at === this.cur.length) {
      this.cur = this.make(Math.min(MAX_CHUNK, this.cur.length * 2));
      this.chunks.push(this.cur);
      this.at = 0;
    }
    this.cur[this.at++] = v;
    this.n++;
  }
  reader(): Reader {
    return new Reader(this.chunks);
  }
}

/** Reads a column from its start, one value at a time (the caller knows how many there are). */
class Reader {
  private c = 0;
  private i = 0;
  private cur: ArrayLike<number>;
  constructor(private readonly chunks: ArrayLike<number>[]) {
    this.cur = chunks[0];
  }
  next(): number {
    if (this.i === this.cur.length) {
      this.cur = this.chunks[++this.c];
      this.i = 0;
    }
    return this.cur[this.i++];
  }
}

/** The narrowest unsigned typed array of `n` entries that holds codes below `distinct`. */
export function codeArray(n: number, distinct: number): Uint8Array | Uint16Array | Uint32Array {
  if (distinct <= 0x100) return new Uint8Array(n);
  if (distinct <= 0x10000) return new Uint16Array(n);
  return new Uint32Array(n);
}

/**
 * Builds a FullTextIndex from documents added in ordinal order. Postings are appended to flat columns (lexeme id and
 * rank share per posting, positions with the last of each posting flagged, the posting count per document) and laid
 * out per lexeme once at the end (a stable counting sort), so a corpus of 367k CVEs and hundreds of thousands of
 * distinct lexemes costs a few large arrays, not an array per lexeme.
 */
export class FullTextIndexBuilder {
  private readonly termIds = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly cvss: number[] = [];
  private readonly epss: number[] = [];
  private readonly idRank: number[] = [];
  private readonly pTerm = new Column((n) => new Int32Array(n));
  /** The distinct rank shares, each with its code (the order of first sight). */
  private readonly codes = new Map<number, number>();
  /** The code of each posting's share: two bytes each while there are at most 65,536 distinct shares, then four. */
  private pShare: Column<Uint16Array> | Column<Uint32Array> = new Column((n) => new Uint16Array(n));
  /** Postings added once each document is in (the document of posting i: the first d with i < docEnd[d]). */
  private readonly docEnd = new Column((n) => new Int32Array(n));
  private readonly positions = new Column((n) => new Uint16Array(n));

  add(doc: IndexedDoc): void {
    this.ids.push(doc.cveId);
    this.cvss.push(doc.cvss ?? Number.NaN);
    this.epss.push(doc.epss ?? Number.NaN);
    this.idRank.push(doc.idRank);
    eachLexeme(doc.search, (lex, weights, positions) => {
      let t = this.termIds.get(lex);
      if (t === undefined) {
        t = this.termIds.size;
        this.termIds.set(lex, t);
      }
      this.pTerm.push(t);
      const share = lexemeContribution(weights);
      let code = this.codes.get(share);
      if (code === undefined) {
        code = this.codes.size;
        this.codes.set(share, code);
        if (code === 0x10000) this.widenShares();
      }
      this.pShare.push(code);
      const last = positions.length - 1;
      for (let j = 0; j <= last; j++) {
        const p = positions[j];
        // PostgreSQL's positions stop at 16,383; the top bit of each is the index's own flag.
        if (p >= LAST_POSITION) throw new Error(`tsvector text: position ${p} out of range`);
        this.positions.push(j === last ? p | LAST_POSITION : p);
      }
    });
    this.docEnd.push(this.pTerm.n);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The 65,537th distinct share: the codes so far move to a column of four bytes each. */
  private widenShares(): void {
    const wide = new Column((n) => new Uint32Array(n));
    const r = this.pShare.reader();
    for (let i = 0; i < this.pShare.n; i++) wide.push(r.next());
    this.pShare = wide;
  }

  build(): FullTextIndex {
    const n = this.pTerm.n;
    const nTerms = this.termIds.size;
    // Pass 1: postings and positions per lexeme.
    const offsets = new Int32Array(nTerms + 1);
    const posFill = new Int32Array(nTerms + 1);
    {
      const terms = this.pTerm.reader(),
        pos = this.positions.reader();
      for (let i = 0; i < n; i++) {
        const t = terms.next();
        offsets[t + 1]++;
        let c = 1;
        while ((pos.next() & LAST_POSITION) === 0) c++;
        posFill[t + 1] += c;
      }
    }
    for (let t = 0; t < nTerms; t++) {
      offsets[t + 1] += offsets[t];
      posFill[t + 1] += posFill[t];
    }
    const shares = Float32Array.from(this.codes.keys());
    // Pass 2: each posting to its place in its lexeme's list; its positions after the list's previous ones.
    const fill = offsets.slice(0, nTerms);
    const ords = new Int32Array(n);
    const shareOf = codeArray(n, shares.length);
    const positions = new Uint16Array(this.positions.n);
    const posBlock = new Int32Array(Math.ceil(n / POSITION_BLOCK));
    {
      const terms = this.pTerm.reader(),
        pos = this.positions.reader(),
        share = this.pShare.reader(),
        ends = this.docEnd.reader();
      let doc = 0,
        end = ends.next();
      for (let i = 0; i < n; i++) {
        while (i === end) {
          doc++;
          end = ends.next();
        }
        const t = terms.next();
        const k = fill[t]++;
        ords[k] = doc;
        shareOf[k] = share.next();
        let p = posFill[t];
        if (k % POSITION_BLOCK === 0) posBlock[k / POSITION_BLOCK] = p;
        for (;;) {
          const v = pos.next();
          positions[p++] = v;
          if (v & LAST_POSITION) break;
        }
        posFill[t] = p;
      }
    }
    const idEnd = new Int32Array(this.ids.length);
    let at = 0;
    this.ids.forEach((id, i) => {
      at += id.length;
      idEnd[i] = at;
    });
    return new FullTextIndex({
      termIds: this.termIds,
      offsets,
      ords,
      shareOf,
      shares,
      positions,
      posBlock,
      idText: this.ids.join(''),
      idEnd,
      cvss: Float32Array.from(this.cvss),
      epss: Float32Array.from(this.epss),
      idRank: Int32Array.from(this.idRank),
    });
  }
}
