// Which unit test files can kill a mutant of src/domain (used by tools/mutation-tests.mjs and the in-process runner).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

function unitTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? unitTests(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const DOMAIN = path.join('src', 'domain') + path.sep;
const HELPERS = path.join('test', 'helpers') + path.sep;

/** Every repository file reachable from `file` through relative imports (file itself included), not following imports
 *  out of src/ code outside src/domain: a test that reaches a rule only through a feed reader, a job or the CLI
 *  (tables.test.ts, the reader tests) asserts on that code, not on the rule, and would only add seconds per mutant.
 *  Shared helpers (test/helpers: fixture loading, merging records to set up a case) are not followed either: a test
 *  that asserts on a rule imports that rule's module itself. */
function closure(file, seen = new Set()) {
  const f = path.normalize(file);
  if (seen.has(f) || !existsSync(f)) return seen;
  seen.add(f);
  if (f.startsWith(`src${path.sep}`) && !f.startsWith(DOMAIN)) return seen;
  if (f.startsWith(HELPERS)) return seen;
  for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) closure(path.join(path.dirname(f), m[1] ?? m[2]), seen);
  return seen;
}

/** The unit test files (sorted) that reach one of `targets` (space-separated paths), or any file of src/domain when
 *  `targets` is empty. Paths are relative to the current directory (the checkout or Stryker's sandbox). */
export function selectUnitTests(targets) {
  const wanted = targets?.trim()
    ? targets
        .trim()
        .split(/\s+/)
        .map((t) => path.normalize(t))
    : undefined;
  return unitTests(path.join('test', 'unit'))
    .sort()
    .filter((t) => {
      const reach = [...closure(t)];
      return wanted ? wanted.some((x) => reach.includes(x)) : reach.some((x) => x.startsWith(DOMAIN));
    });
}
