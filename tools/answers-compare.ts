// Compares two recordings of the tests' answers (test/helpers/answer-record.ts), made before and after a change that
// is meant to move code only: per test file, every recorded answer of one run must be an answer of the other (as a
// multiset: requests a test sends at once may be answered in either order). Prints the counts and the first
// differences, and exits 1 when any answer differs or a file was recorded on one side only.
//   VULNINTEL_RECORD_ANSWERS=/tmp/before node test/run.mjs test/contract test/security   (at the base commit)
//   VULNINTEL_RECORD_ANSWERS=/tmp/after node test/run.mjs test/contract test/security    (at the change)
//   npx tsx tools/answers-compare.ts /tmp/before /tmp/after
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeAnswer } from '../test/helpers/answer-record.ts';

/**
 * Headers that depend on the wall clock and on the order in which a test's concurrent requests reach the limiter
 * (the rate window's seconds left, the budget left), not on the code.
 */
const WALL_CLOCK = new Set(['retry-after', 'x-ratelimit-remaining']);

function lines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) =>
      JSON.stringify(JSON.parse(l), (k, v: unknown) =>
        WALL_CLOCK.has(k) ? '<n>' : typeof v === 'string' ? normalizeAnswer(v) : v,
      ),
    );
}

/** The answers of `a` missing from `b` (with their multiplicity). */
export function missing(a: string[], b: string[]): string[] {
  const left = new Map<string, number>();
  for (const l of b) left.set(l, (left.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of a) {
    const n = left.get(l) ?? 0;
    if (n === 0) out.push(l);
    else left.set(l, n - 1);
  }
  return out;
}

const requestOf = (line: string): string => String((JSON.parse(line) as { request?: unknown }).request);

/** Where two answers to the same request part: 60 characters of each around the first difference. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const at = Math.max(0, i - 20);
  return `before …${a.slice(at, i + 40)}… after …${b.slice(at, i + 40)}…`;
}

function main(): void {
  const [before, after] = process.argv.slice(2);
  if (!before || !after) throw new Error('usage: tools/answers-compare.ts <before dir> <after dir>');
  const files = new Set([...readdirSync(before), ...readdirSync(after)]);
  let answers = 0;
  let differ = 0;
  for (const f of [...files].sort()) {
    let a: string[];
    let b: string[];
    try {
      a = lines(path.join(before, f));
      b = lines(path.join(after, f));
    } catch {
      console.log(`${f}: recorded on one side only`);
      differ++;
      continue;
    }
    const gone = missing(a, b);
    const added = missing(b, a);
    answers += a.length;
    differ += gone.length;
    console.log(`${f}: ${a.length} answers before, ${b.length} after, ${gone.length} differ`);
    for (const l of gone.slice(0, 5)) {
      const request = requestOf(l);
      const twin = added.find((m) => requestOf(m) === request);
      if (!twin) console.log(`  before only: ${l.slice(0, 300)}`);
      else console.log(`  ${request}: ${firstDifference(l, twin)}`);
    }
    for (const l of added.filter((m) => !gone.some((g) => requestOf(g) === requestOf(m))).slice(0, 3))
      console.log(`  after only:  ${l.slice(0, 300)}`);
  }
  console.log(`${answers} answers in ${files.size} files; ${differ} differ`);
  if (differ > 0) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('tools', 'answers-compare.ts'))) main();
