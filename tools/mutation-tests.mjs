#!/usr/bin/env node
// The test command of the mutation run (stryker.config.json, command runner): node's test runner over the unit
// tests only (no PostgreSQL), so a mutant costs seconds, not minutes. MUTATION_TESTS narrows it to the files
// that exercise the rule file being mutated (space-separated paths), e.g.
//   MUTATION_TESTS="test/unit/rule-boundaries.test.ts test/unit/enrichment.test.ts" npx stryker run --mutate src/domain/exploit.ts
// MUTATION_TEST_PATTERN passes --test-name-pattern (only the tests whose name matches run).
// Exit code 0 = every test passed (the mutant survived), anything else = killed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

function unitTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? unitTests(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const files = process.env.MUTATION_TESTS?.trim() ? process.env.MUTATION_TESTS.trim().split(/\s+/) : unitTests('test/unit').sort();
const pattern = process.env.MUTATION_TEST_PATTERN?.trim() ? [`--test-name-pattern=${process.env.MUTATION_TEST_PATTERN.trim()}`] : [];
const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/helpers/fc-setup.ts', '--test', '--test-reporter=dot', ...pattern, ...files], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, FC_SEED: process.env.FC_SEED ?? '42' },
});
process.exit(r.status ?? 1);
