// The project speaks of itself in the present: code, comments, migrations, tests, benches, tools and docs say what is
// and why, never in which sitting or for which ticket something was done (git keeps that history). A line naming a
// numbered session or issue fails here, with its file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { textFiles } from '../helpers/repo-files.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const self = path.relative(root, fileURLToPath(import.meta.url));

/** Every line of the repository's own text that matches `pattern`, as `file:line: text`. */
function linesMatching(pattern: RegExp): string[] {
  const hits: string[] = [];
  for (const file of textFiles(root)) {
    if (file === self) continue;
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
  }
  return hits;
}

test('no "session N" anywhere in src, test, bench, tools, docs or README.md', () => {
  assert.deepEqual(linesMatching(/session [0-9]/i), []);
});

test('no "issue N" either: a rule or figure says what it is, not which ticket asked for it', () => {
  assert.deepEqual(linesMatching(/\bissues? #?[0-9]/i), []);
});

test('the scan reads what it must: src, tests without their fixtures, benches, tools, docs and the README', () => {
  const files = textFiles(root);
  for (const f of [
    'README.md',
    'docs/architecture.md',
    'src/app.ts',
    'src/store/migrations/0100_ingest_sources.sql',
    'bench/report.ts',
    'tools/mutation-tests.mjs',
    'test/run.mjs',
    self,
  ]) {
    assert.ok(files.includes(f), f);
  }
  assert.ok(
    !files.some((f) => f.startsWith('test/fixtures/') || f.startsWith('node_modules/') || f.includes('/node_modules/')),
    'fixtures (copies of real feeds) and dependencies are not ours',
  );
});

// Stryker's mutator names (@stryker-mutator/instrumenter); a directive naming another one silently disables nothing.
const MUTATORS = new Set([
  'ArithmeticOperator',
  'ArrayDeclaration',
  'ArrowFunction',
  'AssignmentOperator',
  'BlockStatement',
  'BooleanLiteral',
  'ConditionalExpression',
  'EqualityOperator',
  'LogicalOperator',
  'MethodExpression',
  'ObjectLiteral',
  'OptionalChaining',
  'Regex',
  'StringLiteral',
  'UnaryOperator',
  'UpdateOperator',
]);

test('an equivalent mutant is marked where it is: every Stryker directive names real mutators, and a disable says why', () => {
  const bad: string[] = [];
  let directives = 0;
  for (const file of textFiles(root).filter((f) => f.startsWith('src/') && f.endsWith('.ts'))) {
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const m = /\/\/\s*Stryker\s+(disable|restore)(\s+next-line)?\s+(\S+?)(?::\s*(.*))?$/.exec(line);
        if (!m) return;
        directives++;
        const names = m[3].split(',');
        if (names.some((n) => !MUTATORS.has(n))) bad.push(`${file}:${i + 1}: unknown mutator in "${m[3]}"`);
        if (m[1] === 'disable' && (m[4] ?? '').trim().length < 20)
          bad.push(`${file}:${i + 1}: a disable says why the mutant is equivalent`);
      });
  }
  assert.deepEqual(bad, []);
  assert.ok(directives > 0, 'the equivalent mutants of src/domain are marked in the code');
});
