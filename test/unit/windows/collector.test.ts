// The PowerShell collector cannot run here: its column list must equal the service's field list, and the
// sample output published in README.md and docs/windows-collector.md must pass the service's validator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { csvRowToHostRecord, validateHost } from '../../../src/domain/windows/validate.ts';
import { HOST_FIELDS } from '../../../src/domain/windows/host-record.ts';

const script = readFileSync(new URL('../../../tools/collect-windows-host.ps1', import.meta.url), 'utf8');
const docs = {
  'README.md': readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'),
  'docs/windows-collector.md': readFileSync(new URL('../../../docs/windows-collector.md', import.meta.url), 'utf8'),
};

test("the collector's column list equals the service's host fields, in order", () => {
  const m = /^\$Columns = @\(([^)]*)\)$/m.exec(script);
  assert.ok(m, 'the $Columns line is present');
  const cols = [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
  assert.deepEqual(cols, [...HOST_FIELDS]);
  // Every column is filled from the ordered row the script builds.
  for (const c of cols) assert.match(script, new RegExp(`^\\s+${c}\\s+=`, 'm'), c);
  // It never reads the computer name or network identity.
  assert.doesNotMatch(
    script,
    /COMPUTERNAME|Get-NetIPAddress|Win32_NetworkAdapter|USERNAME|SerialNumber|DigitalProductId/i,
  );
});

for (const [name, doc] of Object.entries(docs))
  test(`the sample output in ${name} passes the validator`, () => {
    const m = /```csv\n([\s\S]*?)```/.exec(doc);
    assert.ok(m, `${name} has a csv sample`);
    const rows = parse(m[1], { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]), [...HOST_FIELDS]);
    const v = validateHost(csvRowToHostRecord(rows[0]));
    assert.ok(v.ok, JSON.stringify(v));
    assert.deepEqual(v.ok && v.host.installed_kbs, ['KB5087538', 'KB5086096']);
    assert.deepEqual(v.ok && v.warnings, []);
  });
