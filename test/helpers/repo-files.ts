// The repository's own text (code, comments, migrations, tests, benches, tools and docs) for the tests that read it
// whole: src/, test/ without its fixtures (copies of real feeds), bench/ without its output, tools/, docs/ and
// README.md. Paths are relative to the root, with forward slashes.
import { readdirSync } from 'node:fs';
import path from 'node:path';

const TEXT = /\.(?:ts|mts|mjs|js|cjs|sql|sh|ps1|md|json)$/;
const SKIP = new Set(['node_modules', 'test/fixtures', 'bench/out']);

export function textFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (SKIP.has(p) || e.name === 'node_modules') continue;
      if (e.isDirectory()) walk(p);
      else if (TEXT.test(e.name)) out.push(p);
    }
  };
  for (const dir of ['src', 'test', 'bench', 'tools', 'docs']) walk(dir);
  out.push('README.md');
  return out.sort();
}
