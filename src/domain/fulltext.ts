// The in-memory full-text index behind broad searches (`GET /api/v1/cves?q=`; docs/search.md). Pure: it is built
// from the stored search vectors (`cves.search`, read as PostgreSQL's text form) and evaluates the stored
// query (`websearch_to_tsquery(...)`, also as text), so matching, ranking and order are PostgreSQL's own:
//  - match: the tsquery's AND / OR / NOT over posting lists of document ordinals;
//  - rank:  `ts_rank(search, query)` with the default weights, recomputed exactly (float4 arithmetic in
//           PostgreSQL's order) from per-posting contributions, for queries whose top operator is not AND
//           (ours: `english || simple` is an OR) — PostgreSQL's calc_rank_or in src/backend/utils/adt/tsrank.c;
//  - order: rank (or the sort key), then newest first, then cve_id descending: ordinals are numbered in
//           (published_at DESC NULLS LAST, cve_id DESC) order, so that tie-break is the ordinal.
// Phrases (`<->`, `<N>` between lexemes, as websearch_to_tsquery writes quoted and hyphenated words) are checked
// on stored positions. Queries this index does not evaluate (weights, prefixes, a top-level AND) answer null and
// run in PostgreSQL instead; so do CVE ids (the reader routes them there: the exact-id-first rule is SQL's).

/** A parsed tsquery (the operators the index evaluates). */
export type TsNode =
  | { op: 'lex'; lexeme: string }
  | { op: 'not'; arg: TsNode }
  | { op: 'and' | 'or'; left: TsNode; right: TsNode }
  /** A chain `t0 <g0> t1 <g1> t2 …`: t(i+1) at exactly gaps[i] positions after t(i) (`<->` is a gap of 1). */
  | { op: 'phrase'; terms: string[]; gaps: number[] };

/**
 * Parses PostgreSQL's text output of a tsquery. Returns 'empty' for the empty query, and null when the query uses
 * an operator or decoration the index does not evaluate (weights or prefix `:…`, a phrase operator between anything
 * but lexemes or lexeme chains).
 */
export function parseTsQuery(text: string): TsNode | 'empty' | null {
  // Every rule that cannot read its input answers null, and null climbs to the top: no flag is needed. A weight or
  // prefix (`'a':*`) ends the lexeme at ':', which no rule reads, so the query is not read to its end (null below).
  let i = 0;
  const n = text.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
  const skip = () => { while (i < n && text[i] === ' ') i++; };
  const lexeme = (): TsNode | null => {
    i++; // opening quote
    let out = '';
    // Stryker disable next-line EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
    while (i < n) {
      const c = text[i];
      // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
      if (c === '\\' && i + 1 < n) { out += text[i + 1]; i += 2; continue; }
      if (c === "'") {
        if (text[i + 1] === "'") { out += "'"; i += 2; continue; }
        i++;
        return { op: 'lex', lexeme: out };
      }
      out += c;
      i++;
    }
    return null;
  };
  const unary = (): TsNode | null => {
    skip();
    const c = text[i];
    if (c === '!') { i++; const arg = unary(); return arg && { op: 'not', arg }; }
    if (c === '(') {
      i++;
      const inner = or();
      skip();
      if (!inner || text[i] !== ')') return null;
      i++;
      return inner;
    }
    if (c === "'") return lexeme();
    return null;
  };
  // `<->` / `<N>` bind tighter than `&`; only chains of lexemes (what websearch_to_tsquery writes) are evaluated.
  const phrase = (): TsNode | null => {
    let left = unary();
    for (;;) {
      if (!left) return null;
      skip();
      if (text[i] !== '<') return left;
      // Stryker disable next-line Regex: the operator is read from the start of a slice beginning at it
      const m = /^<(-|\d+)>/.exec(text.slice(i, i + 8));
      if (!m) return null;
      i += m[0].length;
      const gap = m[1] === '-' ? 1 : Number(m[1]);
      const right = unary();
      if (!right) return null;
      if (right.op !== 'lex' || (left.op !== 'lex' && left.op !== 'phrase')) return null;
      left = left.op === 'lex'
        ? { op: 'phrase', terms: [left.lexeme, right.lexeme], gaps: [gap] }
        : { op: 'phrase', terms: [...left.terms, right.lexeme], gaps: [...left.gaps, gap] };
    }
  };
  const and = (): TsNode | null => {
    let left = phrase();
    for (;;) {
      if (!left) return null;
      skip();
      if (text[i] !== '&') return left;
      i++;
      const right = phrase();
      if (!right) return null;
      left = { op: 'and', left, right };
    }
  };
  function or(): TsNode | null {
    let left = and();
    for (;;) {
      if (!left) return null;
      skip();
      if (text[i] !== '|') return left;
      i++;
      const right = and();
      if (!right) return null;
      left = { op: 'or', left, right };
    }
  }
  skip();
  if (i >= n) return 'empty';
  const root = or();
  skip();
  if (!root || i < n) return null;
  return root;
}

/** The distinct lexemes of a query, in PostgreSQL's order (byte-wise, then shorter first): the order ts_rank sums in. */
export function queryLexemes(node: TsNode): string[] {
  const seen = new Set<string>();
  const walk = (x: TsNode) => {
    if (x.op === 'lex') seen.add(x.lexeme);
    else if (x.op === 'phrase') x.terms.forEach((t) => seen.add(t));
    else if (x.op === 'not') walk(x.arg);
    else { walk(x.left); walk(x.right); }
  };
  walk(node);
  return [...seen].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** ts_rank's default weights, indexed D, C, B, A. */
const WEIGHTS = [0.1, 0.2, 0.4, 1.0].map(Math.fround);
const WEIGHT_OF: Record<string, number> = { A: 3, B: 2, C: 1, D: 0 };
/** sum(1/i^2), the normaliser of calc_rank_or. */
const ZETA2 = 1.64493406685;

/**
 * One lexeme's share of ts_rank for one document, given the weight class (0 D … 3 A) of each of its positions in
 * position order: the float4 value of `wjm + resj - wjm / (jm+1)^2` in calc_rank_or (divided by ZETA2 at query
 * time, in double, as PostgreSQL does).
 */
export function lexemeContribution(weights: readonly number[]): number {
  const f = Math.fround;
  let resj = 0;
  let wjm = -1;
  let jm = 0;
  for (let j = 0; j < weights.length; j++) {
    const w = WEIGHTS[weights[j]];
    resj = f(resj + f(w / ((j + 1) * (j + 1))));
    if (w > wjm) { wjm = w; jm = j; }
  }
  return f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1))));
}

/**
 * Parses PostgreSQL's text output of a tsvector (`'code':1A,5 'it''s':3`) and calls `each` per lexeme with the
 * weight classes of its positions and the positions, in position order. A lexeme stored without positions counts
 * as one D position 0 (PostgreSQL's POSNULL).
 */
export function eachLexeme(text: string, each: (lexeme: string, weights: number[], positions: number[]) => void): void {
  const n = text.length;
  let i = 0;
  // Stryker disable next-line EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
  while (i < n) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
    while (i < n && text[i] === ' ') i++;
    if (i >= n) break;
    if (text[i] !== "'") throw new Error(`tsvector text: expected a quote at ${i}`);
    i++;
    let start = i;
    let lex = '';
    for (;;) {
      // Stryker disable next-line EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
      if (i >= n) throw new Error('tsvector text: unterminated lexeme');
      const c = text.charCodeAt(i);
      if (c === 39 /* ' */) {
        if (text.charCodeAt(i + 1) === 39) { lex += text.slice(start, i + 1); i += 2; start = i; continue; }
        lex += text.slice(start, i);
        i++;
        break;
      }
      if (c === 92 /* \ */) { lex += text.slice(start, i); lex += text[i + 1]; i += 2; start = i; continue; }
      i++;
    }
    const weights: number[] = [];
    const positions: number[] = [];
    // Stryker disable next-line ConditionalExpression: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
    if (text[i] === ':') {
      i++;
      for (;;) {
        let pos = 0;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
        while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) pos = pos * 10 + text.charCodeAt(i++) - 48;
        positions.push(pos);
        const w = WEIGHT_OF[text[i]];
        if (w !== undefined) { weights.push(w); i++; } else weights.push(0);
        if (text[i] === ',') { i++; continue; }
        break;
      }
    } else { weights.push(0); positions.push(0); }
    each(lex, weights, positions);
  }
}

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

export type IndexSort = 'rank' | 'date' | 'cvss' | 'epss';

export interface IndexQuery {
  /** The parsed tsquery (parseTsQuery of the stored query text). */
  query: TsNode;
  sort: IndexSort;
  offset: number;
  limit: number;
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

/** The index's arrays: postings of lexeme t are [offsets[t], offsets[t+1]) of ords/contrib/posStart/posLen. */
interface IndexData {
  termIds: Map<string, number>;
  offsets: Int32Array;
  ords: Int32Array;
  contrib: Float32Array;
  posStart: Int32Array;
  posLen: Uint16Array;
  positions: Uint16Array;
  ids: string[];
  cvss: Float32Array;
  epss: Float32Array;
  idRank: Int32Array;
}

const EMPTY = new Int32Array(0);

/** The first index in [from, to) of the ascending `a` whose value is ≥ v (galloping, then binary search). */
function seek(a: Int32Array, from: number, to: number, v: number): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  if (from >= to || a[from] >= v) return from;
  let step = 1;
  let lo = from;
  while (lo + step < to && a[lo + step] < v) { lo += step; step *= 2; }
  let hi = Math.min(to, lo + step + 1);
  // Stryker disable next-line UpdateOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  // Stryker disable next-line MethodExpression: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0, j = 0, k = 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  while (i < a.length && j < b.length) {
    // Stryker disable next-line EqualityOperator,UpdateOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    if (a[i] === b[j]) { out[k++] = a[i]; i++; j++; } else if (a[i] < b[j]) i++; else j++;
  }
  return out.subarray(0, k);
}

function union(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length || j < b.length) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    if (j >= b.length || (i < a.length && a[i] < b[j])) out[k++] = a[i++];
    else if (i >= a.length || b[j] < a[i]) out[k++] = b[j++];
    else { out[k++] = a[i]; i++; j++; }
  }
  return out.subarray(0, k);
}

function minus(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    while (j < b.length && b[j] < a[i]) j++;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    if (j < b.length && b[j] === a[i]) i++; else out[k++] = a[i++];
  }
  return out.subarray(0, k);
}

/** The index: posting lists per lexeme and the per-document sort keys. Immutable once built. */
export class FullTextIndex {
  // Scratch space of the ranking pass, reused (queries run synchronously, one at a time).
  private readonly mark: Uint8Array;
  private readonly score: Float32Array;

  constructor(private readonly d: IndexData) {
    this.mark = new Uint8Array(d.ids.length);
    this.score = new Float32Array(d.ids.length);
  }

  get size(): number {
    return this.d.ids.length;
  }

  private all(): Int32Array {
    const a = new Int32Array(this.d.ids.length);
    // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
    for (let i = 0; i < a.length; i++) a[i] = i;
    return a;
  }

  /** Posting range [from, to) of a lexeme (empty when unknown). */
  private range(lexeme: string): [number, number] {
    const t = this.d.termIds.get(lexeme);
    return t === undefined ? [0, 0] : [this.d.offsets[t], this.d.offsets[t + 1]];
  }

  /** Whether posting k holds position p (positions are ascending). */
  private hasPosition(k: number, p: number): boolean {
    const { positions, posStart, posLen } = this.d;
    let lo = posStart[k], hi = lo + posLen[k] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (positions[mid] === p) return true;
      // Stryker disable next-line EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
      if (positions[mid] < p) lo = mid + 1; else hi = mid - 1;
    }
    return false;
  }

  /**
   * Documents where the chain occurs: every lexeme present, at the stated distances from the first. Driven by the
   * rarest lexeme; the others are searched by galloping from their last position (a phrase with a common word,
   * such as simple's 'out' <-> 'of', must not walk that word's whole list).
   */
  private phrase(terms: string[], gaps: number[]): Int32Array {
    const { ords, positions, posStart, posLen } = this.d;
    const ranges = terms.map((t) => this.range(t));
    // Stryker disable next-line ArrowFunction,ConditionalExpression,MethodExpression: a speed-only choice: which list leads the intersection and the empty-range shortcut; the result is the same
    if (ranges.some(([a, b]) => a === b)) return EMPTY;
    let lead = 0;
    // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: a speed-only choice: which list leads the intersection and the empty-range shortcut; the result is the same
    for (let j = 1; j < ranges.length; j++) if (ranges[j][1] - ranges[j][0] < ranges[lead][1] - ranges[lead][0]) lead = j;
    const cur = ranges.map(([a]) => a);
    const at = new Int32Array(terms.length);
    const out: number[] = [];
    for (let k = ranges[lead][0]; k < ranges[lead][1]; k++) {
      const ord = ords[k];
      let present = true;
      for (let j = 0; j < terms.length && present; j++) {
        // Stryker disable next-line BlockStatement,ConditionalExpression: a speed-only choice: which list leads the intersection and the empty-range shortcut; the result is the same
        if (j === lead) { at[j] = k; continue; }
        const i = seek(ords, cur[j], ranges[j][1], ord);
        cur[j] = i;
        present = i < ranges[j][1] && ords[i] === ord;
        at[j] = i;
      }
      if (!present) continue;
      const k0 = at[0];
      for (let i = posStart[k0]; i < posStart[k0] + posLen[k0]; i++) {
        let p = positions[i];
        let ok = true;
        for (let j = 1; j < terms.length && ok; j++) {
          p += gaps[j - 1];
          ok = this.hasPosition(at[j], p);
        }
        if (ok) { out.push(ord); break; }
      }
    }
    return Int32Array.from(out);
  }

  /** Ordinals matching a query, ascending. */
  private match(x: TsNode): Int32Array {
    switch (x.op) {
      case 'lex': {
        const [a, b] = this.range(x.lexeme);
        return this.d.ords.subarray(a, b);
      }
      case 'phrase': return this.phrase(x.terms, x.gaps);
      case 'not': return minus(this.all(), this.match(x.arg));
      case 'or': return union(this.match(x.left), this.match(x.right));
      case 'and':
        // x & !y without materialising the complement.
        // Stryker disable next-line ConditionalExpression,StringLiteral: the NOT shortcut: AND NOT evaluated as a difference gives the same set as the general path
        if (x.right.op === 'not') return minus(this.match(x.left), this.match(x.right.arg));
        // Stryker disable next-line ConditionalExpression,StringLiteral: the NOT shortcut: AND NOT evaluated as a difference gives the same set as the general path
        if (x.left.op === 'not') return minus(this.match(x.right), this.match(x.left.arg));
        return intersect(this.match(x.left), this.match(x.right));
    }
  }

  /** ts_rank of every matched document, in `matched` order (calc_rank_or: sum over distinct lexemes / count). */
  private ranks(query: TsNode, matched: Int32Array): Float32Array {
    const lexemes = queryLexemes(query);
    const { mark, score } = this;
    const { ords, contrib } = this.d;
    for (const o of matched) mark[o] = 1;
    for (const lex of lexemes) {
      const [a, b] = this.range(lex);
      // Float32Array stores round to float4: res = (float)(res + (double)contribution / ZETA2).
      // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: walk against seek, a speed-only choice: both give the same positions
      if (b - a <= 4 * matched.length) {
        for (let i = a; i < b; i++) {
          const o = ords[i];
          if (mark[o] === 1) score[o] = score[o] + contrib[i] / ZETA2;
        }
      } else {
        // A common lexeme ('of', 'code'): seek each matched document in its list instead of walking all of it.
        let i = a;
        for (const o of matched) {
          i = seek(ords, i, b, o);
          if (i >= b) break;
          if (ords[i] === o) score[o] = score[o] + contrib[i] / ZETA2;
        }
      }
    }
    const out = new Float32Array(matched.length);
    const size = lexemes.length;
    // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
    for (let i = 0; i < matched.length; i++) {
      const o = matched[i];
      // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: a rank rescaling that keeps the order (size is never 0 for a matched document)
      out[i] = size > 0 ? score[o] / size : 0;
      mark[o] = 0;
      score[o] = 0;
    }
    return out;
  }

  /**
   * The exact total and one page of CVE ids, in the order PostgreSQL's `ORDER BY` gives; null when the query's
   * top operator is AND (ts_rank then uses calc_rank_and, which this index does not reproduce) and the order is
   * by rank.
   */
  search(q: IndexQuery): { total: number; ids: string[] } | null {
    if (q.sort === 'rank' && q.query.op === 'and') return null;
    const matched = this.match(q.query);
    const total = matched.length;
    // Stryker disable next-line MethodExpression: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
    const want = Math.min(total, q.offset + q.limit);
    let order: ArrayLike<number>;
    if (q.sort === 'date') order = matched.subarray(0, want);
    else {
      const key = q.sort === 'rank' ? this.ranks(q.query, matched) : keysOf(q.sort === 'cvss' ? this.d.cvss : this.d.epss, matched);
      order = topK(matched, key, want, q.sort === 'rank' ? null : this.d.idRank);
    }
    const ids: string[] = [];
    for (let i = q.offset; i < Math.min(order.length, q.offset + q.limit); i++) ids.push(this.d.ids[order[i]]);
    return { total, ids };
  }
}

function keysOf(values: Float32Array, matched: Int32Array): Float32Array {
  const out = new Float32Array(matched.length);
  // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
  for (let i = 0; i < matched.length; i++) out[i] = values[matched[i]];
  return out;
}

/**
 * The first k of `matched` by key descending (NaN = NULL, last), ties by `tieRank` ascending (the cve_id DESC
 * position) or, without it, by ordinal.
 */
function topK(matched: Int32Array, key: Float32Array, k: number, tieRank: Int32Array | null): number[] {
  // Stryker disable next-line ConditionalExpression: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
  if (k === 0) return [];
  // Threshold: the k-th largest key; only candidates at or above it are sorted. A typed array's own sort is
  // numeric, ascending, NaN (NULL) last.
  const sorted = key.slice().sort();
  let numbers = sorted.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
  while (numbers > 0 && Number.isNaN(sorted[numbers - 1])) numbers--;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
  const t = k <= numbers ? sorted[numbers - k] : Number.NaN;
  const cand: number[] = [];
  for (let i = 0; i < matched.length; i++) {
    const v = key[i];
    // Stryker disable next-line ConditionalExpression,LogicalOperator: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
    if (Number.isNaN(t) || (!Number.isNaN(v) && v >= t)) cand.push(i);
  }
  const tie = (i: number) => (tieRank ? tieRank[matched[i]] : matched[i]);
  cand.sort((a, b) => {
    const va = key[a], vb = key[b];
    const na = Number.isNaN(va), nb = Number.isNaN(vb);
    if (na !== nb) return na ? 1 : -1;
    if (!na && va !== vb) return vb - va;
    return tie(a) - tie(b);
  });
  // Stryker disable next-line MethodExpression: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
  return cand.slice(0, k).map((i) => matched[i]);
}
