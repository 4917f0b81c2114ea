#!/usr/bin/env node
// Lists the surviving (and uncovered) mutants of a Stryker JSON report, one line each: file:line:col mutator  original → replacement.
//   node tools/mutation/survivors.mjs [reports/mutation/mutation.json] [file-substring]
import { readFileSync } from 'node:fs';

const [file = 'reports/mutation/mutation.json', only = ''] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
for (const [name, f] of Object.entries(report.files)) {
  if (!name.includes(only)) continue;
  const lines = f.source.split('\n');
  for (const m of f.mutants) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const { start, end } = m.location;
    const orig =
      start.line === end.line
        ? lines[start.line - 1].slice(start.column - 1, end.column - 1)
        : `${lines[start.line - 1].slice(start.column - 1)}…`;
    console.log(
      `${name}:${start.line}:${start.column} ${m.status === 'NoCoverage' ? '[no cov] ' : ''}${m.mutatorName}  ${orig.slice(0, 80)} → ${String(m.replacement).replace(/\s+/g, ' ').slice(0, 80)}`,
    );
  }
}
