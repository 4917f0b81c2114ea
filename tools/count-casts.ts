// Counts the type assertions in src/: `x as T` and `<T>x`, leaving out `as const` (a literal's narrowing, not a
// claim about a type), and the non-null assertions on a request's principal (`req.principal!`). Prints the totals
// and, with --files, the count per file (most first).
//   npx tsx tools/count-casts.ts [--files] [dir]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const perFile = args.includes('--files');
const root = path.resolve(args.find((a) => !a.startsWith('--')) ?? 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.tsx?$/.test(e) && !e.endsWith('.d.ts') ? [p] : [];
  });
}

export interface CastCount {
  casts: number;
  principal: number;
}

export function countCasts(fileName: string, text: string): CastCount {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const out: CastCount = { casts: 0, principal: 0 };
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const t = node.type;
      const isConst = ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName) && t.typeName.text === 'const';
      if (!isConst) out.casts++;
    } else if (ts.isNonNullExpression(node)) {
      const e = node.expression;
      if (ts.isPropertyAccessExpression(e) && e.name.text === 'principal') out.principal++;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const rows = walk(root).map((f) => ({
  file: path.relative(process.cwd(), f),
  ...countCasts(f, readFileSync(f, 'utf8')),
}));
const total = rows.reduce((a, r) => ({ casts: a.casts + r.casts, principal: a.principal + r.principal }), {
  casts: 0,
  principal: 0,
});
if (perFile) {
  for (const r of rows
    .filter((r) => r.casts + r.principal > 0)
    .sort((a, b) => b.casts - a.casts || a.file.localeCompare(b.file))) {
    console.log(`${String(r.casts).padStart(4)} ${String(r.principal).padStart(4)}  ${r.file}`);
  }
}
console.log(`as casts (excluding as const): ${total.casts}`);
console.log(`principal non-null assertions: ${total.principal}`);
