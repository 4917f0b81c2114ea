// Boundaries of the enrichment rules that a mutation run showed no test pinned ("tests that a change
// to a rule must break"). Each case sits on the edge of its rule, from the real fixtures where they have one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSources } from '../../src/domain/merge.ts';
import { buildCveDocument } from '../../src/domain/enrich.ts';
import { exploitFacts, isFunctionalExploitRef, isPocRef } from '../../src/domain/exploit.ts';
import { VARIES_NOTE } from '../../src/domain/patch.ts';
import { cveRecords, fixture, realCatalogs } from '../helpers/feeds.ts';

const NOW = '2026-01-01T00:00:00.000Z';

async function recordsOf(cve: string, files: string[]) {
  return (await cveRecords(...files)).filter((r) => r.cve_id === cve);
}

test('patch rule 1: exactly two product/fixed-version pairs already vary by product (ICSA-23-103-07, CVE-2023-28489)', async () => {
  const recs = await recordsOf('CVE-2023-28489', [fixture('csaf', 'icsa-23-103-07.json')]);
  const pairs = new Set(recs.flatMap((r) => r.advisory?.fixes ?? []).map((f) => `${f.product}|${f.version}`));
  assert.equal(pairs.size, 2, 'the advisory states two fixed versions for this CVE');
  const d = buildCveDocument(mergeSources('CVE-2023-28489', recs), await realCatalogs(), NOW).doc;
  assert.equal(d.patch.status, 'varies_by_product');
  assert.equal(d.patch.note, VARIES_NOTE);
  assert.equal(d.patch.patch_available, false);
  assert.equal(d.patch.fixed_in, null);
});

test('exploit: an untagged Packet Storm link is not a public exploit (CVE-2023-28489); the same link tagged Exploit is', async () => {
  const [nvd] = await recordsOf('CVE-2023-28489', [fixture('nvd', 'CVE-2023-28489.json')]);
  const ps = nvd.references.find((r) => r.url.includes('packetstormsecurity.com'))!;
  assert.ok(ps, 'the NVD record links Packet Storm');
  assert.deepEqual(ps.tags, [], 'untagged in the record');
  assert.equal(isFunctionalExploitRef(ps), false);
  const facts = exploitFacts('CVE-2023-28489', false, nvd.references);
  assert.equal(facts.has_public_exploit, false);
  assert.equal(facts.exploit_maturity, 'NONE');
  assert.ok(!facts.evidence.includes(ps.url));
  const d = buildCveDocument(mergeSources('CVE-2023-28489', [nvd]), await realCatalogs(), NOW).doc;
  assert.equal(d.exploitation.has_public_exploit, false);
  // Tagged Exploit, the same entry counts (both Packet Storm domains).
  for (const url of [ps.url, ps.url.replace('packetstormsecurity.com', 'packetstorm.news')]) {
    const tagged = { ...ps, url, tags: ['Exploit'] };
    assert.equal(isFunctionalExploitRef(tagged), true, url);
    assert.equal(exploitFacts('CVE-2023-28489', false, [tagged]).exploit_maturity, 'FUNCTIONAL');
  }
});

test('exploit: a GitHub security advisory named after the CVE is not a proof of concept; a repository named after it is', () => {
  // The real data has GitHub advisories only under GHSA ids (no CVE in the path, so never a PoC); the exclusion
  // matters for the advisory paths that do name the CVE, which GitHub serves for repository advisories.
  const cve = 'CVE-2023-28489';
  const ref = (url: string) => ({ url, tags: [], provided_by: 'nvd@nist.gov' });
  assert.equal(isPocRef(ref(`https://github.com/acme/plc-tool/security/advisories/${cve}`), cve), false);
  assert.equal(isPocRef(ref(`https://github.com/advisories/${cve}`), cve), false);
  assert.equal(isPocRef(ref(`https://github.com/someone/${cve}`), cve), true);
  assert.equal(isPocRef(ref(`https://gist.github.com/someone/${cve.toLowerCase()}-poc`), cve), true);
  assert.equal(
    exploitFacts(cve, false, [ref(`https://github.com/acme/plc-tool/security/advisories/${cve}`)]).poc_available,
    false,
  );
  assert.equal(exploitFacts(cve, false, [ref(`https://github.com/someone/${cve}`)]).exploit_maturity, 'POC');
});
