// docs/benchmarks.md's tables are what `npm run bench:report` prints from bench/figures.json, so a figure added to
// one and not the other fails here; and the data's own rules (known capability, corpus and machine; `met` only with
// a target) hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { textFiles } from '../helpers/repo-files.ts';
import {
  DOC_FILE,
  documentedReport,
  loadFigures,
  problems,
  renderReport,
  wrap,
  type Figures,
} from '../../bench/report.ts';

test('docs/benchmarks.md holds exactly the tables bench:report prints (regenerate: npm run bench:report -- --write)', () => {
  const documented = documentedReport(readFileSync(DOC_FILE, 'utf8'));
  assert.ok(documented !== null, 'docs/benchmarks.md keeps the bench:report markers');
  assert.equal(documented, renderReport(loadFigures()));
});

test('bench/figures.json has no problem, every capability has a figure, and the report has a table per capability', () => {
  const data = loadFigures();
  assert.deepEqual(problems(data), []);
  const report = renderReport(data);
  for (const c of data.capabilities)
    assert.ok(report.includes(`\n## ${c.title}\n`) || report.startsWith(`## ${c.title}\n`), c.title);
  assert.equal(report.split('\n').filter((l) => l.startsWith('| Figure |')).length, data.capabilities.length);
});

test('the data rules refuse what the tables could not show truthfully', () => {
  const base = loadFigures();
  const withFigure = (patch: object): Figures => ({
    ...base,
    figures: [{ ...base.figures[0], ...patch }, ...base.figures.slice(1)],
  });
  assert.match(problems(withFigure({ corpus: 'nowhere' })).join('\n'), /unknown corpus "nowhere"/);
  assert.match(problems(withFigure({ machine: 'laptop' })).join('\n'), /unknown machine "laptop"/);
  assert.match(problems(withFigure({ capability: 'teleport' })).join('\n'), /unknown capability "teleport"/);
  assert.match(
    problems(withFigure({ target: null })).join('\n'),
    /met is true or false when there is a target, null when there is none/,
  );
  assert.match(problems(withFigure({ target: '≥ 1', met: null })).join('\n'), /met is true or false/);
  assert.match(problems(withFigure({ command: ' ' })).join('\n'), /command must be a non-empty string/);
  assert.match(problems(withFigure({ commit: 'HEAD' })).join('\n'), /commit must be a hash or null/);
  assert.throws(() => renderReport(withFigure({ corpus: 'nowhere' })), /bench\/figures\.json:/);
  const orphan: Figures = {
    ...base,
    capabilities: [...base.capabilities, { id: 'empty', title: 'Empty', about: 'x' }],
  };
  assert.deepEqual(problems(orphan), ['capability empty has no figure']);
});

test('a row shows met, not met, or – for a stated figure, and escapes a | inside a cell', () => {
  const data: Figures = {
    machines: { m: 'a machine' },
    corpora: { c: 'a corpus' },
    capabilities: [{ id: 'x', title: 'X', about: 'About.' }],
    figures: [
      {
        capability: 'x',
        figure: 'a',
        value: '1 | 2',
        target: '≥ 1',
        met: true,
        command: 'run',
        corpus: 'c',
        machine: 'm',
        load: 'quiet',
        commit: 'abcdef1',
      },
      {
        capability: 'x',
        figure: 'b',
        value: '0',
        target: '≥ 1',
        met: false,
        command: 'run',
        corpus: 'c',
        machine: 'm',
        load: 'load 3',
        commit: null,
        note: 'why',
      },
      {
        capability: 'x',
        figure: 'c',
        value: '5',
        target: null,
        met: null,
        command: 'run',
        corpus: 'c',
        machine: 'm',
        load: 'quiet',
        commit: null,
      },
    ],
  };
  const rows = renderReport(data)
    .split('\n')
    .filter((l) => /^\| [abc] \|/.test(l) && l.split(' | ').length === 8);
  assert.deepEqual(rows, [
    '| a | 1 \\| 2 | ≥ 1 | met | `run` | c | m, quiet | abcdef1 |',
    '| b | 0 | ≥ 1 | **not met** | `run` | c | m, load 3 | – |',
    '| c | 5 | – | – | `run` | c | m, quiet | – |',
  ]);
  assert.ok(renderReport(data).includes('\n- b: why.\n'));
});

test('prose wraps at the width without breaking a code span', () => {
  assert.equal(wrap('aaa bbb ccc', 7), 'aaa bbb\nccc');
  assert.equal(wrap('x `a b c` y', 4), 'x `a b c`\ny', 'a span that starts within the width runs past it whole');
  assert.equal(wrap('- note that wraps', 10, '  '), '- note\n  that\n  wraps');
});

test('a section of docs/benchmarks.md cited by name in code or docs exists', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const titles = new Set([
    ...loadFigures().capabilities.map((c) => c.title),
    'Machines',
    'Corpora',
    'Adding or updating a figure',
  ]);
  const bad: string[] = [];
  for (const file of textFiles(root)) {
    const text = readFileSync(path.join(root, file), 'utf8').replace(/\n\s*(?:\/\/|\*|--|#)?\s*/g, ' ');
    for (const m of text.matchAll(/benchmarks\.md`?,? \(?"([^"]+)"/g))
      if (!titles.has(m[1])) bad.push(`${file}: "${m[1]}"`);
  }
  assert.deepEqual(bad, []);
});
