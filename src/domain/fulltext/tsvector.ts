// PostgreSQL's tsvector in its text form (`cves.search::text`), read lexeme by lexeme, and each lexeme's share of
// `ts_rank` (calc_rank_or in src/backend/utils/adt/tsrank.c): what the index builder stores per posting.

/** ts_rank's default weights, indexed D, C, B, A. */
const WEIGHTS = [0.1, 0.2, 0.4, 1.0].map(Math.fround);
const WEIGHT_OF: Record<string, number> = { A: 3, B: 2, C: 1, D: 0 };
/** sum(1/i^2), the normaliser of calc_rank_or. */
export const ZETA2 = 1.64493406685;

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
    if (w > wjm) {
      wjm = w;
      jm = j;
    }
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
        if (text.charCodeAt(i + 1) === 39) {
          lex += text.slice(start, i + 1);
          i += 2;
          start = i;
          continue;
        }
        lex += text.slice(start, i);
        i++;
        break;
      }
      if (c === 92 /* \ */) {
        lex += text.slice(start, i);
        lex += text[i + 1];
        i += 2;
        start = i;
        continue;
      }
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
        while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57)
          pos = pos * 10 + text.charCodeAt(i++) - 48;
        positions.push(pos);
        const w = WEIGHT_OF[text[i]];
        if (w !== undefined) {
          weights.push(w);
          i++;
        } else weights.push(0);
        if (text[i] === ',') {
          i++;
          continue;
        }
        break;
      }
    } else {
      weights.push(0);
      positions.push(0);
    }
    each(lex, weights, positions);
  }
}
