#!/usr/bin/env node
// The test command of the mutation run (stryker.config.json, command runner). Exit code 0 = every test passed (the
// mutant survived), anything else = killed. Unit tests only (no PostgreSQL). See docs/quality.md.
//
// Which tests run:
// - MUTATION_TARGET="src/domain/x.ts [...]": the unit test files whose import graph (followed through relative
//   imports, transitively, through src/domain only; tools/mutation/select.mjs) reaches one of those files. A test that cannot
//   load the mutated code cannot kill its mutants; one that reaches it only through src/ingest, src/jobs or the CLI
//   is skipped too (see closure()), so a score measured this way is a lower bound. `node tools/mutation-tests.mjs --list` prints the selection.
// - MUTATION_TESTS="a.test.ts b.test.ts": exactly those files.
// - neither: every unit test file that reaches src/domain.
// MUTATION_TEST_PATTERN passes --test-name-pattern (only the tests whose name matches run).
//
// The selected files run in ONE node process (imported one after the other), not under `node --test`, which spawns a
// process per file: on the shared 2-core machine starting node + tsx is most of a mutant's cost.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { selectUnitTests } from './mutation/select.mjs';

function select() {
  if (process.env.MUTATION_TESTS?.trim()) return process.env.MUTATION_TESTS.trim().split(/\s+/);
  return selectUnitTests(process.env.MUTATION_TARGET);
}

const files = select();
if (process.argv.includes('--list')) {
  console.log(files.join('\n'));
  process.exit(0);
}
if (files.length === 0) {
  console.error('mutation-tests: no unit test reaches the target; nothing can kill these mutants');
  process.exit(0);
}
const pattern = process.env.MUTATION_TEST_PATTERN?.trim()
  ? [`--test-name-pattern=${process.env.MUTATION_TEST_PATTERN.trim()}`]
  : [];
const entry = files.map((f) => `await import(${JSON.stringify(pathToFileURL(path.resolve(f)).href)});`).join('\n');
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/helpers/fc-setup.ts',
    '--test-reporter=dot',
    ...pattern,
    '--input-type=module',
    '-e',
    entry,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, FC_SEED: process.env.FC_SEED ?? '42' } },
);
process.exit(r.status ?? 1);
