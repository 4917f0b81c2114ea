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
// Parts: tsquery.ts (the query's text form), tsvector.ts (the stored vectors' text form and the rank contributions),
// build.ts (the builder), postings.ts (posting-list set operations); this file is the index and its evaluation.
import { queryLexemes, type TsNode } from './tsquery.ts';
import { ZETA2 } from './tsvector.ts';
import { EMPTY, intersect, minus, seek, union } from './postings.ts';

export type IndexSort = 'rank' | 'date' | 'cvss' | 'epss';

export interface IndexQuery {
  /** The parsed tsquery (parseTsQuery of the stored query text). */
  query: TsNode;
  sort: IndexSort;
  offset: number;
  limit: number;
}

/** Positions carry this bit on the last position of each posting (PostgreSQL's positions stop at 16,383). */
export const LAST_POSITION = 0x8000;
/** Postings per entry of the position block index (IndexData.posBlock). */
export const POSITION_BLOCK = 16;

/**
 * The index's arrays. The postings of lexeme t are [offsets[t], offsets[t+1]) of ords (the documents) and shareOf
 * (each a code into shares, the distinct ts_rank shares). Positions are stored in posting order, the last one of
 * each posting flagged with LAST_POSITION; posBlock[b] is where posting b × POSITION_BLOCK's positions start. The
 * CVE id of ordinal o is idText from idEnd[o - 1] (0 for the first) to idEnd[o].
 */
interface IndexData {
  termIds: Map<string, number>;
  offsets: Int32Array;
  ords: Int32Array;
  shareOf: Uint8Array | Uint16Array | Uint32Array;
  shares: Float32Array;
  positions: Uint16Array;
  posBlock: Int32Array;
  idText: string;
  idEnd: Int32Array;
  cvss: Float32Array;
  epss: Float32Array;
  idRank: Int32Array;
}

/** The index: posting lists per lexeme and the per-document sort keys. Immutable once built. */
export class FullTextIndex {
  // Scratch space of the ranking pass, reused (queries run synchronously, one at a time).
  private readonly mark: Uint8Array;
  private readonly score: Float32Array;

  constructor(private readonly d: IndexData) {
    this.mark = new Uint8Array(d.idEnd.length);
    this.score = new Float32Array(d.idEnd.length);
  }

  get size(): number {
    return this.d.idEnd.length;
  }

  /** What the index holds and the bytes of each part (bench/index-memory.ts). */
  footprint(): {
    documents: number;
    lexemes: number;
    postings: number;
    positions: number;
    shares: number;
    bytes: Record<string, number>;
  } {
    const d = this.d;
    return {
      documents: this.size,
      lexemes: d.termIds.size,
      postings: d.ords.length,
      positions: d.positions.length,
      shares: d.shares.length,
      bytes: {
        postings: d.offsets.byteLength + d.ords.byteLength + d.shareOf.byteLength + d.shares.byteLength,
        positions: d.positions.byteLength + d.posBlock.byteLength,
        documents:
          d.idText.length +
          d.idEnd.byteLength +
          d.cvss.byteLength +
          d.epss.byteLength +
          d.idRank.byteLength +
          this.mark.byteLength +
          this.score.byteLength,
      },
    };
  }

  /** The CVE id of an ordinal. */
  private idOf(o: number): string {
    return this.d.idText.slice(o === 0 ? 0 : this.d.idEnd[o - 1], this.d.idEnd[o]);
  }

  private all(): Int32Array {
    const a = new Int32Array(this.size);
    // Stryker disable next-line EqualityOperator: writes and reads past the end of typed arrays are ignored by JavaScript
    for (let i = 0; i < a.length; i++) a[i] = i;
    return a;
  }

  /** Posting range [from, to) of a lexeme (empty when unknown). */
  private range(lexeme: string): [number, number] {
    const t = this.d.termIds.get(lexeme);
    return t === undefined ? [0, 0] : [this.d.offsets[t], this.d.offsets[t + 1]];
  }

  /** Where posting k's positions start: its block's start, then past the postings before it in the block. */
  private positionsOf(k: number): number {
    const { positions, posBlock } = this.d;
    let i = posBlock[Math.floor(k / POSITION_BLOCK)];
    for (let j = k % POSITION_BLOCK; j > 0; j--) {
      while ((positions[i] & LAST_POSITION) === 0) i++;
      i++;
    }
    return i;
  }

  /** Whether posting k holds position p (positions are ascending). */
  private hasPosition(k: number, p: number): boolean {
    const { positions } = this.d;
    for (let i = this.positionsOf(k); ; i++) {
      const v = positions[i];
      const q = v & ~LAST_POSITION;
      if (q === p) return true;
      if (q > p || (v & LAST_POSITION) !== 0) return false;
    }
  }

  /**
   * Documents where the chain occurs: every lexeme present, at the stated distances from the first. Driven by the
   * rarest lexeme; the others are searched by galloping from their last position (a phrase with a common word,
   * such as simple's 'out' <-> 'of', must not walk that word's whole list).
   */
  private phrase(terms: string[], gaps: number[]): Int32Array {
    const { ords, positions } = this.d;
    const ranges = terms.map((t) => this.range(t));
    // Stryker disable next-line ArrowFunction,ConditionalExpression,MethodExpression: a speed-only choice: which list leads the intersection and the empty-range shortcut; the result is the same
    if (ranges.some(([a, b]) => a === b)) return EMPTY;
    let lead = 0;
    // Stryker disable ArithmeticOperator,ConditionalExpression,EqualityOperator: a speed-only choice: which list leads the intersection and the empty-range shortcut; the result is the same
    for (let j = 1; j < ranges.length; j++)
      if (ranges[j][1] - ranges[j][0] < ranges[lead][1] - ranges[lead][0]) lead = j;
    // Stryker restore ArithmeticOperator,ConditionalExpression,EqualityOperator
    const cur = ranges.map(([a]) => a);
    const at = new Int32Array(terms.length);
    const out: number[] = [];
    for (let k = ranges[lead][0]; k < ranges[lead][1]; k++) {
      const ord = ords[k];
      let present = true;
      for (let j = 0; j < terms.length && present; j++) {
        // Stryker disable next-line BlockStatement,ConditionalExpression: a speed-only choice: which list leads the intersection and the empty-range shortcut; the result is the same
        if (j === lead) {
          at[j] = k;
          continue;
        }
        const i = seek(ords, cur[j], ranges[j][1], ord);
        cur[j] = i;
        present = i < ranges[j][1] && ords[i] === ord;
        at[j] = i;
      }
      if (!present) continue;
      for (let i = this.positionsOf(at[0]); ; i++) {
        const v = positions[i];
        let p = v & ~LAST_POSITION;
        let ok = true;
        for (let j = 1; j < terms.length && ok; j++) {
          p += gaps[j - 1];
          ok = this.hasPosition(at[j], p);
        }
        if (ok) {
          out.push(ord);
          break;
        }
        if (v & LAST_POSITION) break;
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
      case 'phrase':
        return this.phrase(x.terms, x.gaps);
      case 'not':
        return minus(this.all(), this.match(x.arg));
      case 'or':
        return union(this.match(x.left), this.match(x.right));
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
    const { ords, shareOf, shares } = this.d;
    for (const o of matched) mark[o] = 1;
    for (const lex of lexemes) {
      const [a, b] = this.range(lex);
      // Float32Array stores round to float4: res = (float)(res + (double)contribution / ZETA2).
      // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: walk against seek, a speed-only choice: both give the same positions
      if (b - a <= 4 * matched.length) {
        for (let i = a; i < b; i++) {
          const o = ords[i];
          if (mark[o] === 1) score[o] = score[o] + shares[shareOf[i]] / ZETA2;
        }
      } else {
        // A common lexeme ('of', 'code'): seek each matched document in its list instead of walking all of it.
        let i = a;
        for (const o of matched) {
          i = seek(ords, i, b, o);
          if (i >= b) break;
          if (ords[i] === o) score[o] = score[o] + shares[shareOf[i]] / ZETA2;
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
      const key =
        q.sort === 'rank'
          ? this.ranks(q.query, matched)
          : keysOf(q.sort === 'cvss' ? this.d.cvss : this.d.epss, matched);
      order = topK(matched, key, want, q.sort === 'rank' ? null : this.d.idRank);
    }
    const ids: string[] = [];
    for (let i = q.offset; i < Math.min(order.length, q.offset + q.limit); i++) ids.push(this.idOf(order[i]));
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
  // Threshold: the k-th largest key (NaN when fewer than k keys are numbers); only candidates at or above it are
  // sorted. Selected in linear time: a sort of every match's key, to read one of them, took 4–5 times as long as
  // the selection over 150,000 keys.
  const numbers = new Float32Array(key.length);
  let n = 0;
  for (let i = 0; i < key.length; i++) {
    const v = key[i];
    if (!Number.isNaN(v)) numbers[n++] = v;
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
  const t = k <= n ? nthSmallest(numbers, n, n - k) : Number.NaN;
  const cand: number[] = [];
  for (let i = 0; i < matched.length; i++) {
    const v = key[i];
    // Stryker disable next-line ConditionalExpression,LogicalOperator: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
    if (Number.isNaN(t) || (!Number.isNaN(v) && v >= t)) cand.push(i);
  }
  const tie = (i: number) => (tieRank ? tieRank[matched[i]] : matched[i]);
  cand.sort((a, b) => {
    const va = key[a],
      vb = key[b];
    const na = Number.isNaN(va),
      nb = Number.isNaN(vb);
    if (na !== nb) return na ? 1 : -1;
    if (!na && va !== vb) return vb - va;
    return tie(a) - tie(b);
  });
  // Stryker disable next-line MethodExpression: topK limits: the caller takes its page from the candidates, and the extra ones never reach it
  return cand.slice(0, k).map((i) => matched[i]);
}

/**
 * The value at ascending position `idx` of the first `n` numbers of `a` (no NaN among them), as a sort would place
 * it; `a` is reordered. Quickselect with a three-way partition (keys repeat a lot: equal ranks, CVSS scores) around
 * the median of three.
 */
export function nthSmallest(a: Float32Array, n: number, idx: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const x = a[lo],
      y = a[(lo + hi) >>> 1],
      z = a[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let lt = lo,
      i = lo,
      gt = hi;
    while (i <= gt) {
      const v = a[i];
      if (v < pivot) {
        a[i++] = a[lt];
        a[lt++] = v;
      } else if (v > pivot) {
        a[i] = a[gt];
        a[gt--] = v;
      } else i++;
    }
    if (idx < lt) hi = lt - 1;
    else if (idx > gt) lo = gt + 1;
    else return pivot;
  }
  return a[lo];
}
