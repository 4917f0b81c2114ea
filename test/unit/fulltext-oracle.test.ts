// The full-text index (src/domain/fulltext/) against a plain evaluator written from docs/search.md: generated
// corpora (lexemes with positions and weights, some without positions, CVSS and EPSS with NULLs) and generated
// queries (lexemes, NOT, AND, OR, phrases with gaps) written as PostgreSQL's tsquery text, then every sort and
// page. The plain evaluator reads each document's lexemes directly and ranks with calc_rank_or's float4 sum.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { codeArray, FullTextIndexBuilder } from '../../src/domain/fulltext/build.ts';
import { lexemeContribution } from '../../src/domain/fulltext/tsvector.ts';
import { parseTsQuery, type TsNode } from '../../src/domain/fulltext/tsquery.ts';
import type { IndexSort } from '../../src/domain/fulltext/query.ts';

const LEX = ['a', 'b', 'c', 'd', 'e'];
const WEIGHT = ['D', 'C', 'B', 'A'];
type Entry = { lexeme: string; positions: { p: number; w: number }[] | null };
type Doc = { entries: Entry[]; cvss: number | null; epss: number | null };

/** A lexeme's entry: up to `most` positions in 1..`top` (null, without positions, one time in `freq`). */
const entryOf = (top: number, most: number, freq: number) => (lexeme: string) =>
  fc
    .option(
      fc
        .uniqueArray(fc.integer({ min: 1, max: top }), { minLength: 1, maxLength: most })
        .chain((ps) =>
          fc
            .array(fc.integer({ min: 0, max: 3 }), { minLength: ps.length, maxLength: ps.length })
            .map((ws) => [...ps].sort((x, y) => x - y).map((p, i) => ({ p, w: ws[i] }))),
        ),
      { freq },
    )
    .map((positions) => ({ lexeme, positions }));
const docOf = (entry: (lexeme: string) => fc.Arbitrary<Entry>): fc.Arbitrary<Doc> =>
  fc.record({
    entries: fc.subarray(LEX).chain((ls) => (ls.length ? fc.tuple(...ls.map(entry)) : fc.constant([] as Entry[]))),
    cvss: fc.option(fc.constantFrom(2.5, 5, 7.5, 9.8), { freq: 3 }),
    epss: fc.option(fc.constantFrom(0.01, 0.2, 0.9), { freq: 3 }),
  });
const doc = docOf(entryOf(12, 4, 6));

/** PostgreSQL's text form of a tsvector. */
function vectorText(d: Doc): string {
  return d.entries
    .map(
      (e) =>
        `'${e.lexeme}'${e.positions ? `:${e.positions.map((x) => `${x.p}${x.w ? WEIGHT[x.w] : ''}`).join(',')}` : ''}`,
    )
    .join(' ');
}

const lexNode = fc.constantFrom(...LEX, 'z').map((lexeme): TsNode => ({ op: 'lex', lexeme }));
const phraseNode = fc
  .array(fc.constantFrom(...LEX), { minLength: 2, maxLength: 3 })
  .chain((terms) =>
    fc
      .array(fc.integer({ min: 1, max: 3 }), { minLength: terms.length - 1, maxLength: terms.length - 1 })
      .map((gaps): TsNode => ({ op: 'phrase', terms, gaps })),
  );
const { node } = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    lexNode,
    phraseNode,
    tie('node').map((arg): TsNode => ({ op: 'not', arg: arg as TsNode })),
    fc
      .tuple(fc.constantFrom('and' as const, 'or' as const), tie('node'), tie('node'))
      .map(([op, l, r]): TsNode => ({ op, left: l as TsNode, right: r as TsNode })),
  ),
}));

function queryText(x: TsNode): string {
  switch (x.op) {
    case 'lex':
      return `'${x.lexeme}'`;
    case 'phrase':
      return x.terms
        .map((t, i) => (i ? ` ${x.gaps[i - 1] === 1 ? '<->' : `<${x.gaps[i - 1]}>`} '${t}'` : `'${t}'`))
        .join('');
    case 'not':
      return `!${x.arg.op === 'lex' || x.arg.op === 'not' ? queryText(x.arg) : `( ${queryText(x.arg)} )`}`;
    default:
      return `( ${queryText(x.left)} ${x.op === 'and' ? '&' : '|'} ${queryText(x.right)} )`;
  }
}

/** Positions of a lexeme in a document as the index reads them (no positions: one D position 0). */
function positionsOf(d: Doc, lexeme: string) {
  const e = d.entries.find((x) => x.lexeme === lexeme);
  return e ? (e.positions ?? [{ p: 0, w: 0 }]) : null;
}
function matches(d: Doc, x: TsNode): boolean {
  switch (x.op) {
    case 'lex':
      return positionsOf(d, x.lexeme) !== null;
    case 'not':
      return !matches(d, x.arg);
    case 'and':
      return matches(d, x.left) && matches(d, x.right);
    case 'or':
      return matches(d, x.left) || matches(d, x.right);
    case 'phrase': {
      const ps = x.terms.map((t) => positionsOf(d, t));
      if (ps.some((p) => p === null)) return false;
      return ps[0]!.some(({ p }) => {
        let at = p;
        return x.gaps.every((g, j) => {
          at += g;
          return ps[j + 1]!.some((q) => q.p === at);
        });
      });
    }
  }
}
function lexemesOf(x: TsNode, out = new Set<string>()): Set<string> {
  if (x.op === 'lex') out.add(x.lexeme);
  else if (x.op === 'phrase') x.terms.forEach((t) => out.add(t));
  else if (x.op === 'not') lexemesOf(x.arg, out);
  else {
    lexemesOf(x.left, out);
    lexemesOf(x.right, out);
  }
  return out;
}
function rankOf(d: Doc, x: TsNode): number {
  const f = Math.fround;
  const ls = [...lexemesOf(x)].sort();
  let res = 0;
  for (const l of ls) {
    const ps = positionsOf(d, l);
    if (ps) res = f(res + f(lexemeContribution(ps.map((q) => q.w))) / 1.64493406685);
  }
  return f(res / ls.length);
}

function expected(docs: Doc[], idRank: number[], x: TsNode, sort: IndexSort, offset: number, limit: number) {
  const hit = docs.map((_, i) => i).filter((i) => matches(docs[i], x));
  const key = (i: number) => (sort === 'rank' ? rankOf(docs[i], x) : sort === 'cvss' ? docs[i].cvss : docs[i].epss);
  const order =
    sort === 'date'
      ? hit
      : [...hit].sort((i, j) => {
          const a = key(i),
            b = key(j);
          if ((a === null) !== (b === null)) return a === null ? 1 : -1;
          if (a !== null && b !== null && a !== b) return Math.fround(b) - Math.fround(a);
          return sort === 'rank' ? i - j : idRank[i] - idRank[j];
        });
  return { total: hit.length, ids: order.slice(offset, offset + limit).map((i) => `CVE-${i}`) };
}

test('property: totals and pages equal the plain evaluation for every sort', () => {
  fc.assert(
    fc.property(
      fc.array(doc, { maxLength: 24 }),
      node,
      fc.constantFrom<IndexSort>('rank', 'date', 'cvss', 'epss'),
      fc.nat(6),
      fc.integer({ min: 1, max: 8 }),
      fc.nat(),
      (docs, q, sort, offset, limit, seed) => {
        // idRank: a permutation of the ordinals (the cve_id DESC position).
        const idRank = docs
          .map((_, i) => i)
          .sort((i, j) => ((i * 7919 + seed) % 101) - ((j * 7919 + seed) % 101) || i - j);
        const rankPos = new Array<number>(docs.length);
        idRank.forEach((o, pos) => {
          rankPos[o] = pos;
        });
        const b = new FullTextIndexBuilder();
        docs.forEach((d, i) =>
          b.add({ cveId: `CVE-${i}`, search: vectorText(d), cvss: d.cvss, epss: d.epss, idRank: rankPos[i] }),
        );
        assert.equal(b.size, docs.length);
        const idx = b.build();
        assert.equal(idx.size, docs.length);
        const parsed = parseTsQuery(queryText(q));
        assert.deepEqual(parsed, q, queryText(q));
        const got = idx.search({ query: q, sort, offset, limit });
        if (sort === 'rank' && q.op === 'and') {
          assert.equal(got, null);
          return;
        }
        assert.deepEqual(
          got,
          expected(docs, rankPos, q, sort, offset, limit),
          `${queryText(q)} ${sort} ${offset} ${limit}`,
        );
      },
    ),
    { numRuns: 200 },
  );
});

// The compact layout: positions in posting order with the last of each posting flagged and a start recorded every
// 16 postings, rank shares as codes into a table of distinct values (one byte each up to 256 of them, two up to
// 65,536). Longer lists of positions (up to 40, across PostgreSQL's whole position range), documents enough for many
// position blocks per lexeme, and hundreds of distinct shares; the same plain evaluation decides.
const longDoc = docOf(entryOf(16383, 40, 8));
/** A phrase whose gaps are taken from a document, so long phrases match somewhere. */
const phraseIn = (docs: Doc[], pick: number) => {
  const d = docs[pick % docs.length];
  const e = d?.entries.filter((x) => x.positions);
  if (!e || e.length < 2) return null;
  const [a, b] = [e[pick % e.length], e[(pick + 1) % e.length]];
  const pa = a.positions![pick % a.positions!.length].p,
    pb = b.positions!.find((x) => x.p > pa)?.p;
  return pb === undefined ? null : { op: 'phrase' as const, terms: [a.lexeme, b.lexeme], gaps: [pb - pa] };
};

test('property: the compact layout answers as the plain evaluation on long position lists and many documents', () => {
  fc.assert(
    fc.property(
      fc.array(longDoc, { minLength: 20, maxLength: 70 }),
      node,
      fc.nat(),
      fc.constantFrom<IndexSort>('rank', 'date', 'cvss', 'epss'),
      fc.nat(30),
      fc.integer({ min: 1, max: 25 }),
      (docs, q, pick, sort, offset, limit) => {
        const b = new FullTextIndexBuilder();
        docs.forEach((d, i) =>
          b.add({ cveId: `CVE-${i}`, search: vectorText(d), cvss: d.cvss, epss: d.epss, idRank: docs.length - 1 - i }),
        );
        const idx = b.build();
        const idRank = docs.map((_, i) => docs.length - 1 - i);
        const phrase = phraseIn(docs, pick);
        for (const x of phrase ? [q, phrase, { op: 'or' as const, left: phrase, right: q }] : [q]) {
          const got = idx.search({ query: x, sort, offset, limit });
          if (sort === 'rank' && x.op === 'and') {
            assert.equal(got, null);
            continue;
          }
          assert.deepEqual(
            got,
            expected(docs, idRank, x, sort, offset, limit),
            `${queryText(x)} ${sort} ${offset} ${limit}`,
          );
        }
      },
    ),
    { numRuns: 60 },
  );
});

test("rank shares past 256 distinct values (two-byte codes) keep every document's own share", () => {
  // Document i: lexeme 'a' at positions 1..9 with the weights of i's base-4 digits: 300 weight patterns, most of them
  // distinct shares.
  const docs: Doc[] = Array.from({ length: 300 }, (_, i) => ({
    entries: [
      { lexeme: 'a', positions: Array.from({ length: 9 }, (_, j) => ({ p: j + 1, w: Math.floor(i / 4 ** j) % 4 })) },
    ],
    cvss: null,
    epss: null,
  }));
  const distinct = new Set(docs.map((d) => lexemeContribution(d.entries[0].positions!.map((x) => x.w))));
  assert.ok(distinct.size > 256, `${distinct.size} distinct shares`);
  const b = new FullTextIndexBuilder();
  docs.forEach((d, i) => b.add({ cveId: `CVE-${i}`, search: vectorText(d), cvss: null, epss: null, idRank: i }));
  const q: TsNode = { op: 'or', left: { op: 'lex', lexeme: 'a' }, right: { op: 'lex', lexeme: 'z' } };
  const idRank = docs.map((_, i) => i);
  assert.deepEqual(
    b.build().search({ query: q, sort: 'rank', offset: 0, limit: 300 }),
    expected(docs, idRank, q, 'rank', 0, 300),
  );
});

test('past 65,536 distinct rank shares the codes widen to four bytes, and every posting keeps its own', () => {
  // Lexeme k of document i: positions 10k+1..10k+10, weights the base-4 digits of 20i+k: 120,000 weight patterns,
  // more than 65,536 distinct shares.
  const docs: Doc[] = Array.from({ length: 6000 }, (_, i) => ({
    entries: Array.from({ length: 20 }, (_, k) => ({
      lexeme: `l${k}`,
      positions: Array.from({ length: 10 }, (_, j) => ({
        p: 10 * k + j + 1,
        w: Math.floor((20 * i + k) / 4 ** j) % 4,
      })),
    })),
    cvss: null,
    epss: null,
  }));
  const distinct = new Set(docs.flatMap((d) => d.entries.map((e) => lexemeContribution(e.positions!.map((x) => x.w)))));
  assert.ok(distinct.size > 0x10000, `${distinct.size} distinct shares`);
  const b = new FullTextIndexBuilder();
  docs.forEach((d, i) => b.add({ cveId: `CVE-${i}`, search: vectorText(d), cvss: null, epss: null, idRank: i }));
  const idx = b.build();
  assert.equal(idx.footprint().shares, distinct.size);
  const idRank = docs.map((_, i) => i);
  // Every posting's share counts: each lexeme's whole ranking.
  for (let k = 0; k < 20; k++) {
    const q: TsNode = { op: 'or', left: { op: 'lex', lexeme: `l${k}` }, right: { op: 'lex', lexeme: 'z' } };
    assert.deepEqual(
      idx.search({ query: q, sort: 'rank', offset: 0, limit: docs.length }),
      expected(docs, idRank, q, 'rank', 0, docs.length),
      `l${k}`,
    );
  }
});

test('share codes: one byte up to 256 distinct values, two up to 65,536, four past it', () => {
  assert.ok(codeArray(3, 0x100) instanceof Uint8Array);
  assert.ok(codeArray(3, 0x101) instanceof Uint16Array);
  assert.ok(codeArray(3, 0x10000) instanceof Uint16Array);
  assert.ok(codeArray(3, 0x10001) instanceof Uint32Array);
  assert.equal(codeArray(3, 1).length, 3);
});

test("positions up to 32,767 are kept and found; the index's flag bit is refused in a position", () => {
  const b = new FullTextIndexBuilder();
  b.add({ cveId: 'CVE-0', search: "'a':32766 'b':32767", cvss: null, epss: null, idRank: 0 });
  const phrase: TsNode = { op: 'phrase', terms: ['a', 'b'], gaps: [1] };
  assert.deepEqual(b.build().search({ query: phrase, sort: 'date', offset: 0, limit: 5 }), {
    total: 1,
    ids: ['CVE-0'],
  });
  assert.throws(
    () => new FullTextIndexBuilder().add({ cveId: 'CVE-1', search: "'a':32768", cvss: null, epss: null, idRank: 0 }),
    /position 32768 out of range/,
  );
});

test('a corpus past the first block of every column (65,536 postings and positions) keeps them all', () => {
  const b = new FullTextIndexBuilder();
  const n = 66_000;
  for (let i = 0; i < n; i++)
    b.add({ cveId: `CVE-${i}`, search: i % 2 ? "'x':1 'y':2" : "'x':3", cvss: i % 10, epss: null, idRank: i });
  const idx = b.build();
  const q = (t: string) => {
    const x = parseTsQuery(t);
    assert.ok(x && x !== 'empty');
    return x;
  };
  assert.deepEqual(idx.search({ query: q("'x'"), sort: 'date', offset: n - 2, limit: 5 }), {
    total: n,
    ids: [`CVE-${n - 2}`, `CVE-${n - 1}`],
  });
  assert.deepEqual(idx.search({ query: q("'x' <-> 'y'"), sort: 'date', offset: 32_998, limit: 5 }), {
    total: 33_000,
    ids: ['CVE-65997', 'CVE-65999'],
  });
  assert.deepEqual(idx.search({ query: q("'y'"), sort: 'cvss', offset: 0, limit: 2 }), {
    total: 33_000,
    ids: ['CVE-9', 'CVE-19'],
  });
});

function build(vectors: string[]) {
  const b = new FullTextIndexBuilder();
  vectors.forEach((search, i) => b.add({ cveId: `CVE-${i}`, search, cvss: null, epss: null, idRank: i }));
  return b.build();
}
function ids(idx: ReturnType<typeof build>, q: string, sort: IndexSort = 'date') {
  const x = parseTsQuery(q);
  assert.ok(x && x !== 'empty', q);
  return idx.search({ query: x, sort, offset: 0, limit: 50 })?.ids.map((s) => Number(s.slice(4)));
}

test('AND, OR and NOT over interleaved posting lists, each operand order', () => {
  // a: 0 2 3 5 8; b: 1 2 5 6 8 9; c: 3 4.
  const a = [0, 2, 3, 5, 8],
    bs = [1, 2, 5, 6, 8, 9],
    c = [3, 4];
  const idx = build(
    Array.from({ length: 10 }, (_, i) =>
      [a.includes(i) && "'a':1", bs.includes(i) && "'b':2", c.includes(i) && "'c':3"].filter(Boolean).join(' '),
    ),
  );
  assert.deepEqual(ids(idx, "'a' & 'b'"), [2, 5, 8]);
  assert.deepEqual(ids(idx, "'b' & 'a'"), [2, 5, 8]);
  assert.deepEqual(ids(idx, "'a' & 'c'"), [3]);
  assert.deepEqual(ids(idx, "'c' & 'a'"), [3]);
  assert.deepEqual(ids(idx, "'b' & 'c'"), []);
  assert.deepEqual(ids(idx, "'a' | 'b'"), [0, 1, 2, 3, 5, 6, 8, 9]);
  assert.deepEqual(ids(idx, "'b' | 'a'"), [0, 1, 2, 3, 5, 6, 8, 9]);
  assert.deepEqual(ids(idx, "'c' | 'b'"), [1, 2, 3, 4, 5, 6, 8, 9]);
  assert.deepEqual(ids(idx, "'a' & !'b'"), [0, 3]);
  assert.deepEqual(ids(idx, "!'a' & 'b'"), [1, 6, 9]);
  assert.deepEqual(ids(idx, "'b' & !'a'"), [1, 6, 9]);
  assert.deepEqual(ids(idx, "!( 'a' | 'b' )"), [4, 7]);
  assert.deepEqual(ids(idx, "!'c'"), [0, 1, 2, 5, 6, 7, 8, 9]);
  assert.deepEqual(ids(idx, "( 'a' | 'c' ) & ( 'b' | 'c' )"), [2, 3, 4, 5, 8]);
  assert.deepEqual(ids(idx, "'a' & 'b' & !'c' | 'c' & !'a'"), [2, 4, 5, 8]);
  // The same index answers query after query (its ranking scratch space is left clean).
  assert.deepEqual(ids(idx, "'a' | 'c'", 'rank'), [3, 0, 2, 4, 5, 8]);
  // Only two of a's and none of b's documents match here: the others get no share, now or in the next query.
  assert.deepEqual(ids(idx, "( 'a' & !'b' ) | 'z'", 'rank'), [0, 3]);
  assert.deepEqual(ids(idx, "'c' | 'b'", 'rank'), [1, 2, 3, 4, 5, 6, 8, 9]);
  assert.deepEqual(ids(idx, "'a' | 'z'", 'rank'), [0, 2, 3, 5, 8]);
});

test('phrases: the rarest lexeme leads; postings of the next lexeme in the index are never read as its own', () => {
  // Lexeme ids by first sight: o 0, l 1, n 2. l (one posting) leads; n's first posting (doc 3) follows l's list.
  const lead = build(["'o':1", "'l':1 'o':2", "'o':5", "'n':1 'o':2", "'o':7"]);
  assert.deepEqual(ids(lead, "'l' <-> 'o'"), [1]);
  assert.deepEqual(ids(lead, "'n' <-> 'o'"), [3]);
  // Ids: o 0, m 1, l 2; l (one posting) leads. o has no posting at or after doc 2, where m's first posting follows
  // o's list.
  const other = build(["'o':2", "'o':3", "'m':2 'l':1"]);
  assert.deepEqual(ids(other, "'l' <-> 'o'"), []);
  assert.deepEqual(ids(other, "'l' <-> 'm'"), [2]);
  // A lexeme missing from the index: no document.
  assert.deepEqual(ids(other, "'o' <-> 'zz'"), []);
  assert.deepEqual(ids(other, "'zz' <-> 'o'"), []);
});

test('ranking by seeking a common lexeme: each lexeme counts with its own share, and never past its own list', () => {
  const filler = Array.from({ length: 40 }, () => "'x':5");
  // x is sought (42 postings > 4 × 2 matches), y is walked; each share is divided by the same normaliser. A: x D,
  // y A (1.1); B: x A A, y D (1.35) → B first; y's shares scaled up would put A first.
  assert.deepEqual(ids(build([...filler, "'y':1A 'x':2", "'y':1 'x':2A,3A"]), "'y' <-> 'x' | 'z'", 'rank'), [41, 40]);
  // A: x D, y A A (1.35); B: x A, y D (1.1) → A first; x's shares scaled up would put B first.
  assert.deepEqual(ids(build([...filler, "'y':1A,4A 'x':2", "'y':1 'x':2A"]), "'y' <-> 'x' | 'z'", 'rank'), [40, 41]);
  // Ids: y 0, x 1, z 2; z's first posting (doc 41) follows x's list and is no x share: doc 0 (x D + y C = 0.3)
  // before doc 41 (z C = 0.2).
  assert.deepEqual(ids(build(["'y':1C 'x':2", ...filler, "'z':1C"]), "'y' <-> 'x' | 'z'", 'rank'), [0, 41]);
  // A matched document without x, inside x's list: no share of the next x posting (doc 21's A) for it (doc 20: z D =
  // 0.1, after doc 0's 0.3, and doc 42: y A + x D = 1.1).
  const mid = ["'y':1C 'x':2", ...filler];
  mid.splice(20, 0, "'z':1");
  mid[21] = "'x':5A";
  mid.push("'y':1A 'x':2");
  assert.deepEqual(ids(build(mid), "'y' <-> 'x' | 'z'", 'rank'), [42, 0, 20]);
});
