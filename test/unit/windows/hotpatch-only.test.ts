// A fix listed for a product only as its hotpatch (2024-Oct on Windows 11 24H2), on the real MSRC document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { parseUpdatesIndex, readMsrcFile } from '../../../src/ingest/msrc.ts';
import { IndexBuilder } from '../../../src/domain/windows/evaluation-index.ts';
import { EvaluationRun } from '../../../src/domain/windows/evaluate.ts';
import { renderCve } from '../../../src/domain/windows/render.ts';
import { validateHost } from '../../../src/domain/windows/validate.ts';
import { BASE_HOST, FIXTURE_DIR } from './fixture-index.ts';

const doc = readMsrcFile(fileURLToPath(new URL('../../fixtures/msrc-hotpatch/2024-Oct.xml.gz', import.meta.url)));
const updates = parseUpdatesIndex(JSON.parse(readFileSync(`${FIXTURE_DIR}/updates-index.json`, 'utf8')));
const builder = new IndexBuilder(new Map(updates.map((u) => [u.id, u.cvrfUrl])));
builder.add(doc);
const ix = builder.finish();

function host24h2(build: string) {
  const v = validateHost({
    ...BASE_HOST,
    asset_id: 'w',
    os_product: 'Windows 10 Enterprise',
    edition_id: 'Enterprise',
    os_build: build,
    architecture: 'x64',
    installation_type: 'Client',
  });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return new EvaluationRun(ix, () => undefined, '2026-07-10').evaluate(v.host, v.warnings);
}
const item = (e: ReturnType<typeof host24h2>, cve: string) => e.items.find((i) => i.cve_id === cve)!;
const CVE = 'CVE-2024-43516';

test('the fixture is what the test is about: 24H2 gets CVE-2024-43516 only as hotpatch KB5046696 (26100.2240) and an SSU', () => {
  const rows = doc.vulnerabilities
    .find((v) => v.cve === CVE)!
    .remediations.filter((r) => r.type === 'Vendor Fix' && r.productIds.includes('12390'));
  assert.deepEqual(rows.map((r) => [r.description, r.subType, r.fixedBuild]).sort(), [
    ['5046696', 'SecurityHotpatchUpdate', '10.0.26100.2240'],
    ['5047621', 'ServicingStackUpdate', '10.0.26100.2303'],
  ]);
});

test('a host at or above the hotpatch build is cleared: no 2024 hotpatch is offered to a patched host', () => {
  for (const build of ['10.0.26100.8655', '10.0.26100.2314', '10.0.26100.2240']) {
    const e = host24h2(build);
    const it = item(e, CVE);
    assert.equal(it.status, 'cleared (patched)', build);
    const r = renderCve(it, build, 1);
    assert.equal(r.kb, 'KB5046696');
    assert.equal(r.fixed_build, '10.0.26100.2240');
    assert.match(
      r.priority_reason,
      new RegExp(
        `^Patched: build ${build.replace(/\./g, '\\.')} is at or above the build of hotpatch KB5046696 \\(10\\.0\\.26100\\.2240\\)`,
      ),
    );
    assert.ok(!e.fix_groups.some((g) => g.kb === 'KB5046696' || g.cve_ids.includes(CVE)), build);
  }
});

test('below the hotpatch build the OS build cannot tell: needs review, and the hotpatch is named', () => {
  const e = host24h2('10.0.26100.2239');
  const it = item(e, CVE);
  assert.equal(it.status, 'needs review');
  assert.match(
    it.v.note ?? '',
    /KB5046696 \(build 10\.0\.26100\.2240\) is not one of this product's monthly cumulative updates/,
  );
  assert.ok(e.fix_groups.some((g) => g.kb === 'KB5046696' && g.cve_ids.includes(CVE)));
});
