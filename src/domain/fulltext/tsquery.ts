// PostgreSQL's tsquery in its text form (`websearch_to_tsquery(...)::text`), parsed into the operators the in-memory
// full-text index evaluates (domain/fulltext/query.ts; docs/search.md).

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
  const skip = () => {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
    while (i < n && text[i] === ' ') i++;
  };
  const lexeme = (): TsNode | null => {
    i++; // opening quote
    let out = '';
    // Stryker disable next-line EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
    while (i < n) {
      const c = text[i];
      // Stryker disable ArithmeticOperator,ConditionalExpression,EqualityOperator: reads past the end of the text are undefined and stop the scan the same way (PostgreSQL's tsvector text is well formed)
      if (c === '\\' && i + 1 < n) {
        out += text[i + 1];
        i += 2;
        continue;
      }
      // Stryker restore ArithmeticOperator,ConditionalExpression,EqualityOperator
      if (c === "'") {
        if (text[i + 1] === "'") {
          out += "'";
          i += 2;
          continue;
        }
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
    if (c === '!') {
      i++;
      const arg = unary();
      return arg && { op: 'not', arg };
    }
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
      left =
        left.op === 'lex'
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
    else {
      walk(x.left);
      walk(x.right);
    }
  };
  walk(node);
  return [...seen].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}
