// No file in src/ is over 400 lines (formatted by Prettier, as CI checks): a file that grows past it holds more than
// one concern, and is split by concern (docs/architecture.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const MAX_LINES = 400;
const src = path.resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });
}

/** The number of lines of a text: its line breaks, plus a last line without one. */
function lineCount(text: string): number {
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') || text === '' ? breaks : breaks + 1;
}

test('lineCount counts lines as wc -l does for files that end with a line break', () => {
  assert.equal(lineCount(''), 0);
  assert.equal(lineCount('a\n'), 1);
  assert.equal(lineCount('a\nb\n'), 2);
  assert.equal(lineCount('a\nb'), 2);
});

test(`no file in src/ is over ${MAX_LINES} lines`, () => {
  const all = files(src);
  assert.ok(all.length > 300, `src/ holds ${all.length} source files`);
  const over = all
    .map((f) => ({ file: path.relative(src, f), lines: lineCount(readFileSync(f, 'utf8')) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `src/${f.file}: ${f.lines} lines`);
  assert.deepEqual(over, [], `split these by concern:\n${over.join('\n')}`);
});
