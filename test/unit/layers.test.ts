// The import rules of docs/architecture.md over every layer of src/ (domain/'s purity has its own test,
// test/unit/layering.test.ts):
// - services/ and store/ import nothing from http/;
// - http/ imports no value from store/ (`import type` is allowed: a route may name a row type);
// - only store/ imports kysely or pg, or the query builder's re-export store/kysely.ts;
// - nothing but the CLI (src/cli.ts, src/cli-commands.ts, src/cli/) imports the CLI;
// - nothing outside http/ but the app's wiring (app.ts and the process entries) reaches http/, even transitively.
// Every import of every file is parsed (TypeScript's own scanner: type-only imports are told from value imports).
// ALLOWED lists the leaks that exist today, each by file and target; the list only shrinks: a leak not on it fails,
// and so does an entry that no longer occurs (remove it when the code moves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? (e.name === 'migrations' ? [] : filesUnder(p)) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

interface Import {
  spec: string;
  typeOnly: boolean;
}

/** Static imports, re-exports and dynamic imports of a module, each marked type-only or not. */
export function importsOf(source: string, tsx = false): Import[] {
  const sf = ts.createSourceFile(
    tsx ? 'x.tsx' : 'x.ts',
    source,
    ts.ScriptTarget.Latest,
    false,
    tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: Import[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const typeOnly =
        !!c &&
        (c.isTypeOnly ||
          (!c.name &&
            !!c.namedBindings &&
            ts.isNamedImports(c.namedBindings) &&
            c.namedBindings.elements.length > 0 &&
            c.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ spec: n.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      out.push({ spec: n.moduleSpecifier.text, typeOnly: n.isTypeOnly });
    } else if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    ) {
      out.push({ spec: n.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      out.push({ spec: n.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const CLI = (rel: string) => rel === 'cli.ts' || rel === 'cli-commands.ts' || rel.startsWith('cli/');
const layer = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : rel);

/** The rule an import breaks, if any: `from → to (rule)`, paths relative to src/. */
export function violation(fromRel: string, imp: Import): string | null {
  const from = layer(fromRel);
  if (!imp.spec.startsWith('.')) {
    const pkg = imp.spec.startsWith('@') ? imp.spec.split('/').slice(0, 2).join('/') : imp.spec.split('/')[0];
    if ((pkg === 'kysely' || pkg === 'pg') && from !== 'store' && !imp.typeOnly)
      return `${fromRel} → ${pkg} (only store/ talks to the database)`;
    return null;
  }
  const to = path
    .relative(SRC, path.resolve(SRC, path.dirname(fromRel), imp.spec))
    .split(path.sep)
    .join('/');
  if ((from === 'services' || from === 'store') && layer(to) === 'http')
    return `${fromRel} → ${to} (${from}/ imports nothing from http/)`;
  if (from === 'http' && layer(to) === 'store' && !imp.typeOnly)
    return `${fromRel} → ${to} (http/ imports no store/ value)`;
  if (from !== 'store' && to === 'store/kysely.ts' && !imp.typeOnly)
    return `${fromRel} → ${to} (only store/ builds queries)`;
  if (!CLI(fromRel) && CLI(to)) return `${fromRel} → ${to} (nothing below the CLI imports it)`;
  return null;
}

/** Queries written outside store/: Kysely's builder entry points, raw `sql` templates, `pool.query` (comments stripped). */
export function queryLeak(fromRel: string, source: string): string | null {
  if (layer(fromRel) === 'store') return null;
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const m = /\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto)\(|\bsql`|\bsql\.raw\(|\.pool\.query\(/.exec(
    code,
  );
  return m ? `${fromRel} → queries (only store/ builds queries)` : null;
}

/** Today's leaks, to be moved (docs/architecture.md "Import rules"). Only ever remove entries. */
const ALLOWED = new Set<string>(['jobs/queue.ts → queries (only store/ builds queries)']);

/**
 * The files allowed to reach http/ through their imports: the app's composition root (app.ts builds the HTTP app) and
 * the process entries that start it. Everything else outside http/ reaches no http/ file, directly or through any
 * chain of imports (type-only ones included): a lower layer that imports a helper which imports http/ is as bound to
 * the HTTP layer as one that imports it itself.
 */
const WIRING = new Set(['app.ts', 'main.ts', 'cli.ts', 'cli-commands.ts']);

/** For each file outside http/ and WIRING that reaches http/: one chain of imports from it to an http/ file. */
export function httpReach(graph: ReadonlyMap<string, readonly string[]>): string[] {
  // A depth-first search from each file (each file entered once per search): the path to the first http/ file found.
  const chain = (f: string, seen: Set<string>): string[] | null => {
    if (layer(f) === 'http') return [f];
    if (seen.has(f)) return null;
    seen.add(f);
    for (const t of graph.get(f) ?? []) {
      const c = chain(t, seen);
      if (c) return [f, ...c];
    }
    return null;
  };
  return [...graph.keys()]
    .filter((f) => layer(f) !== 'http' && !WIRING.has(f))
    .sort()
    .flatMap((f) => {
      const c = chain(f, new Set());
      return c ? [c.join(' → ')] : [];
    });
}

/** Every file of src/ with the files it imports (relative imports, type-only included), paths relative to src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of filesUnder(SRC)) {
    const rel = path.relative(SRC, f).split(path.sep).join('/');
    graph.set(
      rel,
      importsOf(readFileSync(f, 'utf8'), f.endsWith('.tsx'))
        .filter((i) => i.spec.startsWith('.'))
        .map((i) =>
          path
            .relative(SRC, path.resolve(path.dirname(f), i.spec))
            .split(path.sep)
            .join('/'),
        ),
    );
  }
  return graph;
}

test('the reach check follows chains of imports and names the first one it finds', () => {
  const graph = new Map<string, string[]>([
    ['store/cves.ts', ['lib/answer.ts']],
    ['lib/answer.ts', ['lib/shape.ts']],
    ['lib/shape.ts', ['http/schemas/cves.ts']],
    ['services/a.ts', ['services/b.ts']],
    ['services/b.ts', ['services/a.ts', 'domain/x.ts']],
    ['jobs/c.ts', ['jobs/d.ts', 'jobs/e.ts']],
    ['jobs/d.ts', ['jobs/c.ts']],
    ['jobs/e.ts', ['lib/shape.ts']],
    ['app.ts', ['http/conventions.ts']],
    ['http/conventions.ts', ['services/refusal.ts']],
  ]);
  assert.deepEqual(httpReach(graph), [
    'jobs/c.ts → jobs/e.ts → lib/shape.ts → http/schemas/cves.ts',
    'jobs/d.ts → jobs/c.ts → jobs/e.ts → lib/shape.ts → http/schemas/cves.ts',
    'jobs/e.ts → lib/shape.ts → http/schemas/cves.ts',
    'lib/answer.ts → lib/shape.ts → http/schemas/cves.ts',
    'lib/shape.ts → http/schemas/cves.ts',
    'store/cves.ts → lib/answer.ts → lib/shape.ts → http/schemas/cves.ts',
  ]);
  graph.set('domain/x.ts', ['http/errors.ts']);
  assert.deepEqual(
    httpReach(graph).filter((c) => c.startsWith('services/')),
    ['services/a.ts → services/b.ts → domain/x.ts → http/errors.ts', 'services/b.ts → domain/x.ts → http/errors.ts'],
  );
});

test("nothing outside http/ but the app's wiring reaches http/, even through other files", () => {
  const graph = importGraph();
  assert.ok(graph.size > 200, `read ${graph.size} files`);
  assert.ok(
    graph.get('app.ts')?.some((t) => t.startsWith('http/')),
    "the check sees the wiring's own http/ imports",
  );
  assert.deepEqual(httpReach(graph), []);
});

test('the import scanner tells type-only imports from value imports', () => {
  const src = [
    "import type { A } from '../store/a.ts';",
    "import { type B, type C } from '../store/b.ts';",
    "import { type D, E } from '../store/c.ts';",
    "import F from 'pg';",
    "export { G } from '../http/g.ts';",
    "export type { H } from '../http/h.ts';",
    "const m = await import('../cli.ts');",
    "let x: import('../store/t.ts').T;",
    "// import { Z } from '../http/z.ts';",
  ].join('\n');
  assert.deepEqual(importsOf(src), [
    { spec: '../store/a.ts', typeOnly: true },
    { spec: '../store/b.ts', typeOnly: true },
    { spec: '../store/c.ts', typeOnly: false },
    { spec: 'pg', typeOnly: false },
    { spec: '../http/g.ts', typeOnly: false },
    { spec: '../http/h.ts', typeOnly: true },
    { spec: '../cli.ts', typeOnly: false },
    { spec: '../store/t.ts', typeOnly: true },
  ]);
  assert.match(
    violation('services/x.ts', { spec: '../http/errors.ts', typeOnly: true }) ?? '',
    /services\/ imports nothing from http/,
  );
  assert.match(
    violation('store/x.ts', { spec: '../http/errors.ts', typeOnly: false }) ?? '',
    /store\/ imports nothing from http/,
  );
  assert.match(
    violation('http/routes/v1/x.ts', { spec: '../../../store/db.ts', typeOnly: false }) ?? '',
    /http\/ imports no store\/ value/,
  );
  assert.equal(violation('http/routes/v1/x.ts', { spec: '../../../store/db.ts', typeOnly: true }), null);
  assert.match(violation('services/x.ts', { spec: 'kysely', typeOnly: false }) ?? '', /only store\//);
  assert.match(violation('jobs/x.ts', { spec: 'pg', typeOnly: false }) ?? '', /only store\//);
  assert.equal(violation('store/x.ts', { spec: 'pg', typeOnly: false }), null);
  assert.match(
    violation('ingest/x.ts', { spec: '../store/kysely.ts', typeOnly: false }) ?? '',
    /only store\/ builds queries/,
  );
  assert.match(violation('ingest/x.ts', { spec: '../cli.ts', typeOnly: true }) ?? '', /below the CLI/);
  assert.equal(violation('cli/x.ts', { spec: '../cli.ts', typeOnly: false }), null);
  assert.equal(violation('cli.ts', { spec: './cli/x.ts', typeOnly: false }), null);
  assert.ok(queryLeak('services/x.ts', "await db.selectFrom('t').selectAll().execute();"));
  assert.ok(queryLeak('jobs/x.ts', 'await sql`SELECT 1`.execute(db);'));
  assert.ok(queryLeak('ingest/x.ts', "await store.pool.query('SELECT 1');"));
  assert.equal(queryLeak('store/x.ts', "await db.selectFrom('t').selectAll().execute();"), null);
  assert.equal(queryLeak('services/x.ts', "// db.selectFrom('t')\nconst a = 1;"), null);
});

test("every layer keeps its import rules (today's leaks listed in ALLOWED, which only shrinks)", () => {
  const found = new Set<string>();
  for (const f of filesUnder(SRC)) {
    const rel = path.relative(SRC, f).split(path.sep).join('/');
    const source = readFileSync(f, 'utf8');
    const q = queryLeak(rel, source);
    if (q) found.add(q);
    for (const imp of importsOf(source, f.endsWith('.tsx'))) {
      const v = violation(rel, imp);
      if (v) found.add(v);
    }
  }
  const added = [...found].filter((v) => !ALLOWED.has(v)).sort();
  const gone = [...ALLOWED].filter((v) => !found.has(v)).sort();
  assert.deepEqual(added, [], 'new layer leaks (move the code instead of importing across the rule)');
  assert.deepEqual(gone, [], 'leaks that no longer occur: remove them from ALLOWED');
});
