// The pure parts of the in-memory full-text index (src/domain/fulltext/): PostgreSQL's text forms of tsquery and
// tsvector, ts_rank's per-lexeme share (known answers computed by PostgreSQL 15), and the index's boolean
// evaluation and order on hand-built vectors. The integration test compares whole searches with PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FullTextIndexBuilder } from '../../src/domain/fulltext/build.ts';
import { eachLexeme, lexemeContribution } from '../../src/domain/fulltext/tsvector.ts';
import { parseTsQuery, queryLexemes } from '../../src/domain/fulltext/tsquery.ts';
import { nthSmallest } from '../../src/domain/fulltext/query.ts';

const f = Math.fround;
/** ts_rank of a one-lexeme-per-item OR query, the way calc_rank_or sums (in query-lexeme order). */
const rank = (contribs: number[], size: number) => f(contribs.reduce((res, c) => f(res + c / 1.64493406685), 0) / size);

test('tsquery text: operators, precedence, quoting, and what the index leaves to PostgreSQL', () => {
  assert.deepEqual(parseTsQuery("'remot' & 'code' | 'remote'"), {
    op: 'or',
    left: { op: 'and', left: { op: 'lex', lexeme: 'remot' }, right: { op: 'lex', lexeme: 'code' } },
    right: { op: 'lex', lexeme: 'remote' },
  });
  assert.deepEqual(parseTsQuery("'a\\\\b' & !( 'c' | 'd' )"), {
    op: 'and',
    left: { op: 'lex', lexeme: 'a\\b' },
    right: { op: 'not', arg: { op: 'or', left: { op: 'lex', lexeme: 'c' }, right: { op: 'lex', lexeme: 'd' } } },
  });
  assert.deepEqual(parseTsQuery("'it''s'"), { op: 'lex', lexeme: "it's" });
  assert.equal(parseTsQuery(''), 'empty');
  assert.equal(parseTsQuery('   '), 'empty');
  assert.deepEqual(parseTsQuery("'cve' <-> '-2021' <-> '-0001'"), {
    op: 'phrase',
    terms: ['cve', '-2021', '-0001'],
    gaps: [1, 1],
  });
  assert.deepEqual(parseTsQuery("'out-of-bound' <3> 'bound' | 'x'"), {
    op: 'or',
    left: { op: 'phrase', terms: ['out-of-bound', 'bound'], gaps: [3] },
    right: { op: 'lex', lexeme: 'x' },
  });
  assert.deepEqual(parseTsQuery("'remot' <-> 'code' & 'window'"), {
    op: 'and',
    left: { op: 'phrase', terms: ['remot', 'code'], gaps: [1] },
    right: { op: 'lex', lexeme: 'window' },
  });
  // A phrase over a group, or a malformed distance, is left to PostgreSQL.
  assert.equal(parseTsQuery("( 'a' | 'b' ) <-> 'c'"), null);
  assert.equal(parseTsQuery("'a' <-> !'c'"), null);
  assert.equal(parseTsQuery("'a' <x> 'b'"), null);
  assert.equal(parseTsQuery("'a':*"), null);
  assert.equal(parseTsQuery("'a':AB | 'b'"), null);
  assert.equal(parseTsQuery("'a' & ( 'b'"), null);
  assert.equal(parseTsQuery("'a' 'b'"), null);
  assert.equal(parseTsQuery("'unterminated"), null);
  assert.equal(parseTsQuery("'a' &"), null);
  assert.equal(parseTsQuery("'a' |"), null);
});

test('query lexemes: distinct, in PostgreSQL byte order, shorter first on a common prefix', () => {
  const q = parseTsQuery("'remote' & 'code' | 'remot' & 'code' & !'x'");
  assert.ok(q && q !== 'empty');
  assert.deepEqual(queryLexemes(q), ['code', 'remot', 'remote', 'x']);
  const u = parseTsQuery("'é' | 'z' | 'Z'");
  assert.ok(u && u !== 'empty');
  assert.deepEqual(queryLexemes(u), ['Z', 'z', 'é']);
});

test('tsvector text: lexemes, escapes, positions and weights (D unlettered; no positions = one D)', () => {
  const seen: [string, number[]][] = [];
  const pos: number[][] = [];
  eachLexeme("'a\\\\b':2B 'code':1A,5,9C 'it''s' 'x':3D", (l, w, p) => {
    seen.push([l, w]);
    pos.push(p);
  });
  assert.deepEqual(seen, [
    ['a\\b', [2]],
    ['code', [3, 0, 1]],
    ["it's", [0]],
    ['x', [0]],
  ]);
  assert.deepEqual(pos, [[2], [1, 5, 9], [0], [3]]);
  assert.throws(() => eachLexeme('code:1', () => {}), /expected a quote/);
  assert.throws(() => eachLexeme("'code", () => {}), /unterminated/);
});

test('ts_rank shares: known answers from PostgreSQL 15 ts_rank()', () => {
  // ts_rank('code':1A,2A, 'code') = 0.75990885
  assert.equal(rank([lexemeContribution([3, 3])], 1), f(0.75990885));
  // ts_rank('code':1,5B,9A, 'code') = 0.72951245 (the maximum weight is not the first position)
  assert.equal(rank([lexemeContribution([0, 2, 3])], 1), f(0.72951245));
  // ts_rank('code':3C 'x':1A, 'code | x | y') = 0.24317084 (three distinct lexemes, two present)
  assert.equal(rank([lexemeContribution([1]), lexemeContribution([3])], 3), f(0.24317084));
  // ts_rank('it''s':1, '''it''''s''') = 0.06079271 (one D position)
  assert.equal(rank([lexemeContribution([0])], 1), f(0.06079271));
});

function index(vectors: [string, string, number | null][]) {
  const b = new FullTextIndexBuilder();
  vectors.forEach(([id, search, cvss], i) =>
    b.add({ cveId: id, search, cvss, epss: null, idRank: vectors.length - 1 - i }),
  );
  return b.build();
}

test('matching: and, or, not, and-not, unknown lexemes; exact totals and pages', () => {
  const idx = index([
    ['CVE-1', "'heap':1A 'overflow':2A", 5],
    ['CVE-2', "'heap':4", 9],
    ['CVE-3', "'overflow':1C", null],
    ['CVE-4', "'stack':1A 'overflow':2", 7],
  ]);
  const run = (q: string, sort: 'rank' | 'date' | 'cvss' | 'epss' = 'date', offset = 0, limit = 10) => {
    const node = parseTsQuery(q);
    assert.ok(node && node !== 'empty');
    return idx.search({ query: node, sort, offset, limit });
  };
  assert.deepEqual(run("'heap' & 'overflow'"), { total: 1, ids: ['CVE-1'] });
  assert.deepEqual(run("'heap' | 'stack'"), { total: 3, ids: ['CVE-1', 'CVE-2', 'CVE-4'] });
  assert.deepEqual(run("'overflow' & !'heap'"), { total: 2, ids: ['CVE-3', 'CVE-4'] });
  assert.deepEqual(run("!'heap' & 'overflow'"), { total: 2, ids: ['CVE-3', 'CVE-4'] });
  assert.deepEqual(run("!'overflow'"), { total: 1, ids: ['CVE-2'] });
  assert.deepEqual(run("'nothing' | 'heap'", 'date', 1, 1), { total: 2, ids: ['CVE-2'] });
  assert.deepEqual(run("'nothing'"), { total: 0, ids: [] });
  // Rank: two A positions first, then one C, then one D each (a tie: ordinal order); a top-level AND is left to
  // PostgreSQL.
  assert.deepEqual(run("'overflow' | 'heap'", 'rank'), { total: 4, ids: ['CVE-1', 'CVE-3', 'CVE-2', 'CVE-4'] });
  assert.equal(run("'heap' & 'overflow'", 'rank'), null);
  // CVSS: descending, NULL last.
  assert.deepEqual(run("'overflow' | 'heap'", 'cvss'), { total: 4, ids: ['CVE-2', 'CVE-4', 'CVE-1', 'CVE-3'] });
  // Past the end: the exact total, no ids.
  assert.deepEqual(run("'overflow'", 'rank', 10, 10), { total: 3, ids: [] });
});

test('ties: equal ranks keep ordinal order; equal sort keys fall to the cve_id DESC position', () => {
  const idx = index([
    ['CVE-A', "'x':1", 5],
    ['CVE-B', "'x':1", 5],
    ['CVE-C', "'x':1", 5],
  ]);
  const node = parseTsQuery("'x'");
  assert.ok(node && node !== 'empty');
  assert.deepEqual(idx.search({ query: node, sort: 'rank', offset: 0, limit: 2 })?.ids, ['CVE-A', 'CVE-B']);
  // idRank is reversed (the last added is first by cve_id DESC).
  assert.deepEqual(idx.search({ query: node, sort: 'cvss', offset: 0, limit: 3 })?.ids, ['CVE-C', 'CVE-B', 'CVE-A']);
  assert.deepEqual(idx.search({ query: node, sort: 'cvss', offset: 1, limit: 1 })?.ids, ['CVE-B']);
});

test('phrases: exact distances between stored positions, chains, and a phrase under NOT', () => {
  const idx = index([
    ['CVE-1', "'remot':1B 'code':2B 'execut':3B", null],
    ['CVE-2', "'code':1 'remot':2 'execut':3", null],
    ['CVE-3', "'remot':1 'x':2 'code':3", null],
    ['CVE-4', "'remot':4,9 'code':10 'execut':12", null],
  ]);
  const run = (q: string) => {
    const node = parseTsQuery(q);
    assert.ok(node && node !== 'empty');
    return idx.search({ query: node, sort: 'date', offset: 0, limit: 10 })?.ids;
  };
  assert.deepEqual(run("'remot' <-> 'code'"), ['CVE-1', 'CVE-4']);
  assert.deepEqual(run("'remot' <-> 'code' <-> 'execut'"), ['CVE-1']);
  assert.deepEqual(run("'remot' <-> 'code' <2> 'execut'"), ['CVE-4']);
  assert.deepEqual(run("'remot' <2> 'code'"), ['CVE-3']);
  assert.deepEqual(run("'code' <-> 'remot'"), ['CVE-2']);
  assert.deepEqual(run("'execut' & !( 'remot' <-> 'code' )"), ['CVE-2']);
  assert.deepEqual(run("'remot' <-> 'nothing'"), []);
});

test('ranking a few matches of a common lexeme seeks them in its list; the shares are the same as a full walk', () => {
  // 40 documents hold 'x'; three hold the phrase 'y' <-> 'x' with different weights. The query's lexemes are
  // x, y, z; only the three phrase documents match, so x's list (40) is over 4 × the matches (3) and is sought.
  const docs: [string, string, number | null][] = [];
  for (let i = 0; i < 40; i++) docs.push([`CVE-X${String(i).padStart(2, '0')}`, "'x':5", null]);
  docs.splice(7, 0, ['CVE-P1', "'x':2 'y':1", null]);
  docs.splice(21, 0, ['CVE-P2', "'x':2A 'y':1", null]);
  docs.splice(33, 0, ['CVE-P3', "'x':2B,7A 'y':1C", null]);
  const idx = index(docs);
  const node = parseTsQuery("'y' <-> 'x' | 'z'");
  assert.ok(node && node !== 'empty');
  const r = idx.search({ query: node, sort: 'rank', offset: 0, limit: 10 });
  // Shares (x then y, / 3 lexemes): P3 = x[B,A] + y[C]; P2 = x[A] + y[D]; P1 = x[D] + y[D].
  const p1 = rank([lexemeContribution([0]), lexemeContribution([0])], 3);
  const p2 = rank([lexemeContribution([3]), lexemeContribution([0])], 3);
  const p3 = rank([lexemeContribution([2, 3]), lexemeContribution([1])], 3);
  assert.ok(p3 > p2 && p2 > p1);
  assert.deepEqual(r, { total: 3, ids: ['CVE-P3', 'CVE-P2', 'CVE-P1'] });
});

test('tsquery text: an operator without its operand, or a character that starts no operand, is left to PostgreSQL', () => {
  for (const q of [
    "<-> 'a'",
    "& 'a'",
    "| 'a'",
    "'a' <->",
    "'a' <-> ",
    "'a' & |",
    "xa'",
    '!',
    "( 'a' ) )",
    "( 'a'",
    "'a' <1> !'b'",
    "!'a' <-> 'b'",
  ]) {
    assert.equal(parseTsQuery(q), null, q);
  }
  // Distances of several digits; a phrase continues a phrase.
  assert.deepEqual(parseTsQuery("'a' <12> 'b' <-> 'c'"), { op: 'phrase', terms: ['a', 'b', 'c'], gaps: [12, 1] });
  assert.deepEqual(parseTsQuery("!!'a'"), { op: 'not', arg: { op: 'not', arg: { op: 'lex', lexeme: 'a' } } });
  assert.deepEqual(parseTsQuery("'a'|'b'&'c'"), {
    op: 'or',
    left: { op: 'lex', lexeme: 'a' },
    right: { op: 'and', left: { op: 'lex', lexeme: 'b' }, right: { op: 'lex', lexeme: 'c' } },
  });
  // A backslash escapes the next character, a final one is kept.
  assert.deepEqual(parseTsQuery("'a\\'b'"), { op: 'lex', lexeme: "a'b" });
  assert.equal(parseTsQuery("'a\\"), null);
});

test('tsvector text: spaces between and after lexemes, a final backslash escape, positions past 9', () => {
  const seen: [string, number[], number[]][] = [];
  eachLexeme("  'a':12,345A   'b\\''   ", (l, w, p) => {
    seen.push([l, w, p]);
  });
  assert.deepEqual(seen, [
    ['a', [0, 3], [12, 345]],
    ["b'", [0], [0]],
  ]);
  const none: string[] = [];
  eachLexeme('   ', (l) => {
    none.push(l);
  });
  assert.deepEqual(none, []);
  assert.throws(() => eachLexeme("'a' b", () => {}), /expected a quote at 4/);
});

test('ts_rank share of a lexeme with no positions is 0', () => {
  assert.equal(lexemeContribution([]), 0);
});

test('nthSmallest answers the value a sort places at each position: distinct keys, heavy repeats, sorted and reversed input', () => {
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const inputs: number[][] = [
    Array.from({ length: 500 }, () => rnd()),
    Array.from({ length: 500 }, () => [0.0607927, 0.0759909, 0.1, 0][Math.floor(rnd() * 4)]),
    Array.from({ length: 300 }, (_, i) => i / 10),
    Array.from({ length: 300 }, (_, i) => 30 - i / 10),
    Array.from({ length: 200 }, () => 5),
    [3],
  ];
  for (const xs of inputs) {
    const sorted = Float32Array.from(xs).sort();
    for (const idx of [0, 1, Math.floor(xs.length / 2), xs.length - 2, xs.length - 1].filter(
      (i) => i >= 0 && i < xs.length,
    )) {
      const a = Float32Array.from(xs);
      assert.equal(nthSmallest(a, a.length, idx), sorted[idx], `position ${idx} of ${xs.length}`);
      assert.deepEqual(
        [...a].sort((p, q) => p - q),
        [...sorted],
        'the same values, reordered',
      );
    }
  }
  // Only the first n values take part.
  assert.equal(nthSmallest(Float32Array.from([9, 1, 5, -100]), 3, 0), 1);
});
