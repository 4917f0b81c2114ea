// The full-text index (src/domain/fulltext.ts) against a plain evaluator written from docs/search.md: generated
// corpora (lexemes with positions and weights, some without positions, CVSS and EPSS with NULLs) and generated
// queries (lexemes, NOT, AND, OR, phrases with gaps) written as PostgreSQL's tsquery text, then every sort and
// page. The plain evaluator reads each document's lexemes directly and ranks with calc_rank_or's float4 sum.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FullTextIndexBuilder, lexemeContribution, parseTsQuery, type IndexSort, type TsNode } from '../../src/domain/fulltext.ts';

const LEX = ['a', 'b', 'c', 'd', 'e'];
const WEIGHT = ['D', 'C', 'B', 'A'];
type Entry = { lexeme: string; positions: { p: number; w: number }[] | null };
type Doc = { entries: Entry[]; cvss: number | null; epss: number | null };

const entry = (lexeme: string) => fc.option(
  fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }).chain((ps) =>
    fc.array(fc.integer({ min: 0, max: 3 }), { minLength: ps.length, maxLength: ps.length }).map((ws) =>
      [...ps].sort((x, y) => x - y).map((p, i) => ({ p, w: ws[i] })))),
  { freq: 6 },
).map((positions) => ({ lexeme, positions }));
const doc: fc.Arbitrary<Doc> = fc.record({
  entries: fc.subarray(LEX).chain((ls) => (ls.length ? fc.tuple(...ls.map(entry)) : fc.constant([] as Entry[]))),
  cvss: fc.option(fc.constantFrom(2.5, 5, 7.5, 9.8), { freq: 3 }),
  epss: fc.option(fc.constantFrom(0.01, 0.2, 0.9), { freq: 3 }),
});

/** PostgreSQL's text form of a tsvector. */
function vectorText(d: Doc): string {
  return d.entries.map((e) => `'${e.lexeme}'${e.positions ? `:${e.positions.map((x) => `${x.p}${x.w ? WEIGHT[x.w] : ''}`).join(',')}` : ''}`).join(' ');
}

const lexNode = fc.constantFrom(...LEX, 'z').map((lexeme): TsNode => ({ op: 'lex', lexeme }));
const phraseNode = fc.array(fc.constantFrom(...LEX), { minLength: 2, maxLength: 3 }).chain((terms) =>
  fc.array(fc.integer({ min: 1, max: 3 }), { minLength: terms.length - 1, maxLength: terms.length - 1 }).map((gaps): TsNode => ({ op: 'phrase', terms, gaps })));
const { node } = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    lexNode, phraseNode,
    tie('node').map((arg): TsNode => ({ op: 'not', arg: arg as TsNode })),
    fc.tuple(fc.constantFrom('and' as const, 'or' as const), tie('node'), tie('node')).map(([op, l, r]): TsNode => ({ op, left: l as TsNode, right: r as TsNode }))),
}));

function queryText(x: TsNode): string {
  switch (x.op) {
    case 'lex': return `'${x.lexeme}'`;
    case 'phrase': return x.terms.map((t, i) => (i ? ` ${x.gaps[i - 1] === 1 ? '<->' : `<${x.gaps[i - 1]}>`} '${t}'` : `'${t}'`)).join('');
    case 'not': return `!${x.arg.op === 'lex' || x.arg.op === 'not' ? queryText(x.arg) : `( ${queryText(x.arg)} )`}`;
    default: return `( ${queryText(x.left)} ${x.op === 'and' ? '&' : '|'} ${queryText(x.right)} )`;
  }
}

/** Positions of a lexeme in a document as the index reads them (no positions: one D position 0). */
function positionsOf(d: Doc, lexeme: string) {
  const e = d.entries.find((x) => x.lexeme === lexeme);
  return e ? e.positions ?? [{ p: 0, w: 0 }] : null;
}
function matches(d: Doc, x: TsNode): boolean {
  switch (x.op) {
    case 'lex': return positionsOf(d, x.lexeme) !== null;
    case 'not': return !matches(d, x.arg);
    case 'and': return matches(d, x.left) && matches(d, x.right);
    case 'or': return matches(d, x.left) || matches(d, x.right);
    case 'phrase': {
      const ps = x.terms.map((t) => positionsOf(d, t));
      if (ps.some((p) => p === null)) return false;
      return ps[0]!.some(({ p }) => {
        let at = p;
        return x.gaps.every((g, j) => { at += g; return ps[j + 1]!.some((q) => q.p === at); });
      });
    }
  }
}
function lexemesOf(x: TsNode, out = new Set<string>()): Set<string> {
  if (x.op === 'lex') out.add(x.lexeme);
  else if (x.op === 'phrase') x.terms.forEach((t) => out.add(t));
  else if (x.op === 'not') lexemesOf(x.arg, out);
  else { lexemesOf(x.left, out); lexemesOf(x.right, out); }
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
  const order = sort === 'date' ? hit : [...hit].sort((i, j) => {
    const a = key(i), b = key(j);
    if ((a === null) !== (b === null)) return a === null ? 1 : -1;
    if (a !== null && b !== null && a !== b) return Math.fround(b) - Math.fround(a);
    return sort === 'rank' ? i - j : idRank[i] - idRank[j];
  });
  return { total: hit.length, ids: order.slice(offset, offset + limit).map((i) => `CVE-${i}`) };
}

test('property: totals and pages equal the plain evaluation for every sort', () => {
  fc.assert(fc.property(
    fc.array(doc, { maxLength: 24 }), node, fc.constantFrom<IndexSort>('rank', 'date', 'cvss', 'epss'), fc.nat(6), fc.integer({ min: 1, max: 8 }), fc.nat(),
    (docs, q, sort, offset, limit, seed) => {
      // idRank: a permutation of the ordinals (the cve_id DESC position).
      const idRank = docs.map((_, i) => i).sort((i, j) => ((i * 7919 + seed) % 101) - ((j * 7919 + seed) % 101) || i - j);
      const rankPos = new Array<number>(docs.length);
      idRank.forEach((o, pos) => { rankPos[o] = pos; });
      const b = new FullTextIndexBuilder();
      docs.forEach((d, i) => b.add({ cveId: `CVE-${i}`, search: vectorText(d), cvss: d.cvss, epss: d.epss, idRank: rankPos[i] }));
      assert.equal(b.size, docs.length);
      const idx = b.build();
      assert.equal(idx.size, docs.length);
      const parsed = parseTsQuery(queryText(q));
      assert.deepEqual(parsed, q, queryText(q));
      const got = idx.search({ query: q, sort, offset, limit });
      if (sort === 'rank' && q.op === 'and') { assert.equal(got, null); return; }
      assert.deepEqual(got, expected(docs, rankPos, q, sort, offset, limit), `${queryText(q)} ${sort} ${offset} ${limit}`);
    }), { numRuns: 200 });
});

test('a corpus past the first block of every column (65,536 postings and positions) keeps them all', () => {
  const b = new FullTextIndexBuilder();
  const n = 66_000;
  for (let i = 0; i < n; i++) b.add({ cveId: `CVE-${i}`, search: i % 2 ? "'x':1 'y':2" : "'x':3", cvss: i % 10, epss: null, idRank: i });
  const idx = b.build();
  const q = (t: string) => { const x = parseTsQuery(t); assert.ok(x && x !== 'empty'); return x; };
  assert.deepEqual(idx.search({ query: q("'x'"), sort: 'date', offset: n - 2, limit: 5 }), { total: n, ids: [`CVE-${n - 2}`, `CVE-${n - 1}`] });
  assert.deepEqual(idx.search({ query: q("'x' <-> 'y'"), sort: 'date', offset: 32_998, limit: 5 }), { total: 33_000, ids: ['CVE-65997', 'CVE-65999'] });
  assert.deepEqual(idx.search({ query: q("'y'"), sort: 'cvss', offset: 0, limit: 2 }), { total: 33_000, ids: ['CVE-9', 'CVE-19'] });
});
