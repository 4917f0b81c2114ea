// The decision records (docs/adr/): unique numbers with no gaps, an index that lists each record once and names the
// next free number, and every citation of a record (`ADR 0045` in code and comments, links in docs) pointing at one
// that exists. Decisions are cited by ADR number only, never by a bare "decision N".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { textFiles } from '../helpers/repo-files.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const adrDir = path.join(root, 'docs/adr');
const records = readdirSync(adrDir)
  .filter((f) => f !== 'README.md')
  .sort();
const numbers = records.map((f) => Number(/^(\d{4})-/.exec(f)?.[1]));
const index = readFileSync(path.join(adrDir, 'README.md'), 'utf8');

test('each record is NNNN-title.md with a matching heading, a status and an area; numbers run from 1 without gaps or repeats', () => {
  for (const f of records) {
    assert.match(f, /^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/, f);
    const text = readFileSync(path.join(adrDir, f), 'utf8');
    assert.match(text, new RegExp(`^# ${f.slice(0, 4)}\\. \\S`), `${f}: heading "# ${f.slice(0, 4)}. Title"`);
    assert.match(text, /^- Status: (accepted|superseded by |accepted; )/m, `${f}: status`);
    assert.match(text, /^- Area: \S/m, `${f}: area`);
  }
  assert.deepEqual(
    numbers,
    numbers.map((_, i) => i + 1),
    'numbers 1..N, each once',
  );
});

test('the index lists every record once, and names the next free number', () => {
  for (const f of records) assert.equal(index.split(`](${f})`).length - 1, 1, `${f} listed once in docs/adr/README.md`);
  const listed = [...index.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]);
  for (const f of listed) assert.ok(records.includes(f), `the index links ${f}, which does not exist`);
  const next = /next free number: \*\*(\d{4})\*\*/.exec(index);
  assert.ok(next, 'the index names the next free number');
  assert.equal(Number(next[1]), records.length + 1, 'the next free number follows the last record');
});

test('every ADR cited in code, tests, benches and docs exists; links to records resolve; no bare "decision N"', () => {
  const known = new Set(numbers);
  const self = path.relative(root, fileURLToPath(import.meta.url));
  for (const file of textFiles(root)) {
    if (file === self) continue;
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/\bADRs? (\d{4}(?:(?:–|-|, | and |, and )\d{4})*)/g)) {
      const cited = m[1].match(/\d{4}/g)!.map(Number);
      if (m[1].includes('–')) for (let n = cited[0]; n <= cited[cited.length - 1]; n++) cited.push(n);
      for (const n of cited) assert.ok(known.has(n), `${file}: ADR ${String(n).padStart(4, '0')} does not exist`);
    }
    for (const m of text.matchAll(/(?:adr\/|\]\()(\d{4}-[a-z0-9-]+\.md)/g)) {
      assert.ok(records.includes(m[1]), `${file}: link to docs/adr/${m[1]}, which does not exist`);
    }
    assert.doesNotMatch(
      text,
      /\bdecisions?(?:\.md)?[ \t]*\n?[ \t]*\d+[a-c]?\b/i,
      `${file}: cite a decision as ADR NNNN`,
    );
  }
});
