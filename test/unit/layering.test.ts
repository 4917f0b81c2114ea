// The layering rule of docs/architecture.md: src/domain/ is pure and imports nothing from the outer folders
// (ingest/, store/, http/, services/, jobs/, cli/, lib/, the app and config). Every import and re-export of every
// file under src/domain is parsed and resolved; one that lands outside src/domain (or on a package other than
// node: built-ins and the pure packages named below) fails the test, naming the file and the specifier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const DOMAIN = path.join(SRC, 'domain');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Module specifiers of static imports, re-exports and dynamic imports (comments stripped first). */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const re of [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]) {
    for (const m of code.matchAll(re)) out.push(m[1]);
  }
  return out;
}

/**
 * Packages that are pure functions of their input (no I/O, no globals), which domain code may use: markdown-it
 * renders the training modules (ADR 0095); unhomoglyph is Unicode's confusables table, which gives a name's skeleton
 * (UTS #39) for the look-alike name rule (src/domain/names.ts).
 */
const PURE_PACKAGES = new Set(['markdown-it', 'unhomoglyph']);

function violation(file: string, spec: string): string | null {
  if (spec.startsWith('node:') || PURE_PACKAGES.has(spec)) return null;
  if (!spec.startsWith('.')) return `${path.relative(SRC, file)} imports the package '${spec}'`;
  const target = path.resolve(path.dirname(file), spec);
  const rel = path.relative(DOMAIN, target);
  return rel.startsWith('..')
    ? `${path.relative(SRC, file)} imports '${spec}' (${path.relative(SRC, target)}) from outside domain/`
    : null;
}

test('the import parser sees every import form', () => {
  const src = [
    "import type { A } from '../ingest/types.ts';",
    'import {\n  B,\n  C,\n} from "../store/db.ts";',
    "export { D } from '../http/x.ts';",
    "export * from '../services/y.ts';",
    "import '../jobs/side-effect.ts';",
    "const m = await import('../lib/z.ts');",
    "// import { E } from '../ingest/commented.ts';",
    "/* import { F } from '../ingest/block.ts'; */",
  ].join('\n');
  assert.deepEqual(specifiers(src).sort(), [
    '../http/x.ts',
    '../ingest/types.ts',
    '../jobs/side-effect.ts',
    '../lib/z.ts',
    '../services/y.ts',
    '../store/db.ts',
  ]);
  const f = path.join(DOMAIN, 'merge.ts');
  assert.match(violation(f, '../ingest/types.ts') ?? '', /outside domain/);
  assert.match(violation(path.join(DOMAIN, 'windows/evaluate.ts'), '../../store/db.ts') ?? '', /outside domain/);
  assert.equal(violation(path.join(DOMAIN, 'windows/evaluate.ts'), '../cve-id.ts'), null);
  assert.match(violation(f, 'kysely') ?? '', /package 'kysely'/);
  assert.equal(violation(f, 'node:crypto'), null);
  assert.equal(violation(f, 'markdown-it'), null);
  assert.match(violation(f, 'markdown-it-anchor') ?? '', /package/);
});

test('src/domain imports nothing from ingest/, store/, http/, services/ or any other outer folder', () => {
  const files = filesUnder(DOMAIN);
  assert.ok(files.length > 20, `found ${files.length} domain files`);
  const bad = files.flatMap((f) =>
    specifiers(readFileSync(f, 'utf8'))
      .map((s) => violation(f, s))
      .filter((v): v is string => v !== null),
  );
  assert.deepEqual(bad, []);
});
