// Builds the in-memory full-text index (domain/fulltext/query.ts) from the stored search vectors, in ordinal order.
import { eachLexeme, lexemeContribution } from './tsvector.ts';
import { FullTextIndex } from './query.ts';

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

/** A typed array that grows by doubling (the builder's append-only columns). */
class Column<T extends Int32Array | Float32Array | Uint16Array | Uint8Array> {
  n = 0;
  constructor(public a: T, private readonly make: (n: number) => T) {}
  push(v: number) {
    if (this.n === this.a.length) {
      const b = this.make(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): T {
    return this.a.subarray(0, this.n) as T;
  }
}

/**
 * Builds a FullTextIndex from documents added in ordinal order. Postings are appended to flat columns (lexeme id,
 * ordinal, contribution, positions) and laid out per lexeme once at the end (a stable counting sort), so a corpus
 * of 367k CVEs and hundreds of thousands of distinct lexemes costs a few large arrays, not an array per lexeme.
 */
export class FullTextIndexBuilder {
  private readonly termIds = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly cvss: number[] = [];
  private readonly epss: number[] = [];
  private readonly idRank: number[] = [];
  private readonly pTerm = new Column(new Int32Array(1 << 16), (n) => new Int32Array(n));
  private readonly pOrd = new Column(new Int32Array(1 << 16), (n) => new Int32Array(n));
  private readonly pContrib = new Column(new Float32Array(1 << 16), (n) => new Float32Array(n));
  private readonly pPosStart = new Column(new Int32Array(1 << 16), (n) => new Int32Array(n));
  private readonly pPosLen = new Column(new Uint16Array(1 << 16), (n) => new Uint16Array(n));
  private readonly positions = new Column(new Uint16Array(1 << 16), (n) => new Uint16Array(n));

  add(doc: IndexedDoc): void {
    const ord = this.ids.length;
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
      this.pOrd.push(ord);
      this.pContrib.push(lexemeContribution(weights));
      this.pPosStart.push(this.positions.n);
      this.pPosLen.push(positions.length);
      for (const p of positions) this.positions.push(p);
    });
  }

  get size(): number {
    return this.ids.length;
  }

  build(): FullTextIndex {
    const terms = this.pTerm.done();
    const nTerms = this.termIds.size;
    const offsets = new Int32Array(nTerms + 1);
    // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
    for (let i = 0; i < terms.length; i++) offsets[terms[i] + 1]++;
    // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
    for (let t = 0; t < nTerms; t++) offsets[t + 1] += offsets[t];
    const fill = offsets.slice(0, nTerms);
    const ords = new Int32Array(terms.length);
    const contrib = new Float32Array(terms.length);
    const posStart = new Int32Array(terms.length);
    const posLen = new Uint16Array(terms.length);
    const srcOrd = this.pOrd.done(), srcContrib = this.pContrib.done(), srcStart = this.pPosStart.done(), srcLen = this.pPosLen.done();
    // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
    for (let i = 0; i < terms.length; i++) {
      const k = fill[terms[i]]++;
      ords[k] = srcOrd[i];
      contrib[k] = srcContrib[i];
      posStart[k] = srcStart[i];
      posLen[k] = srcLen[i];
    }
    return new FullTextIndex({
      // Stryker disable next-line MethodExpression: the positions buffer is not written after done(): a copy or a view hold the same
      termIds: this.termIds, offsets, ords, contrib, posStart, posLen, positions: this.positions.done().slice(),
      ids: this.ids, cvss: Float32Array.from(this.cvss), epss: Float32Array.from(this.epss), idRank: Int32Array.from(this.idRank),
    });
  }
}
