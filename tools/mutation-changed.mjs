#!/usr/bin/env node
// `npm run mutation:changed [-- BASE]`: Stryker over the domain files changed since BASE (default: the merge base
// with main), with thresholds.break 85: the run fails when the mutation score of those files is under 85 %.
// Same configuration as `npm run mutation` (stryker.config.json: the in-process runner, per-test coverage); only
// `mutate` is narrowed to the changed files, with the config's own exclusions kept. docs/quality.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
const base = process.argv[2] ?? git('merge-base', 'HEAD', 'main');
const config = JSON.parse(readFileSync(path.join(root, 'stryker.config.json'), 'utf8'));
const exclusions = config.mutate.filter((p) => p.startsWith('!'));
const excluded = (f) => exclusions.some((p) => path.matchesGlob(f, p.slice(1)));
// Committed changes since BASE and changes not committed yet; deleted files are gone.
const changed = [
  ...new Set([
    ...git('diff', '--name-only', '--diff-filter=d', base, '--', 'src/domain').split('\n'),
    ...git('diff', '--name-only', '--diff-filter=d', 'HEAD', '--', 'src/domain').split('\n'),
  ]),
]
  .filter((f) => f.endsWith('.ts') && !excluded(f))
  .sort();
if (changed.length === 0) {
  console.log(`No domain file changed since ${base.slice(0, 12)}: nothing to mutate.`);
  process.exit(0);
}
console.log(`Mutating ${changed.length} domain file(s) changed since ${base.slice(0, 12)}:\n  ${changed.join('\n  ')}`);
// Stryker takes thresholds only from a configuration file: the project's, narrowed, written under reports/.
const narrowed = { ...config, mutate: [...changed, ...exclusions], thresholds: { high: 90, low: 85, break: 85 } };
delete narrowed.$schema;
mkdirSync(path.join(root, 'reports'), { recursive: true });
const file = path.join('reports', 'stryker.changed.config.json');
writeFileSync(path.join(root, file), `${JSON.stringify(narrowed, null, 2)}\n`);
const r = spawnSync('npx', ['stryker', 'run', file], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
