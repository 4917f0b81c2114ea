// enrich.ts: the CVSS metric actually used (a vector that does not parse falls through to the next one), the facts
// handed to the analysis (KEV fields, weaknesses with their catalog names, the CISA-ADP KEV marker) and enrichCve's
// provider handling (grounded provider not called, previous analysis passed on, clock default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSources, type MergedCve } from '../../src/domain/merge.ts';
import { buildCveDocument, cweUrl, enrichCve } from '../../src/domain/enrich.ts';
import type { AnalysisProvider } from '../../src/domain/analysis.ts';
import type { SageBlock } from '../../src/domain/cve-document.ts';
import { cveRecords, fixture, realCatalogs } from '../helpers/feeds.ts';

const NOW = '2026-01-01T00:00:00.000Z';
async function mergedOf(cve: string, files: string[]): Promise<MergedCve> {
  return mergeSources(
    cve,
    (await cveRecords(...files)).filter((r) => r.cve_id === cve),
  );
}
const kevWindows = () =>
  mergedOf('CVE-2024-21338', [fixture('nvd', 'CVE-2024-21338.json'), fixture('kev', 'kev-cut.json')]);

test('CVSS: the chosen metric first; one whose vector does not parse gives way to the next; none parse → empty block', async () => {
  const m = await kevWindows();
  const chosen = m.cvss!;
  assert.equal(chosen.vector, 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H');
  const v2 = {
    version: '2.0' as const,
    vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
    score: 7.5,
    scored_by: 'x',
    type: 'Secondary',
  };
  const bad = { ...chosen, vector: 'CVSS:3.1/AV:Q' };
  const cat = await realCatalogs();
  // The chosen metric parses: used even when listed last.
  assert.equal(buildCveDocument({ ...m, all_cvss: [v2, chosen] }, cat, NOW).doc.scoring.cvss.vector, chosen.vector);
  const fallback = buildCveDocument({ ...m, cvss: bad, all_cvss: [bad, v2] }, cat, NOW).doc.scoring.cvss;
  assert.deepEqual(
    [fallback.vector, fallback.version, fallback.score, fallback.attack_vector],
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', '2.0', 7.5, 'NETWORK'],
  );
  const empty = buildCveDocument({ ...m, cvss: bad, all_cvss: [bad] }, cat, NOW);
  assert.equal(empty.doc.scoring.cvss.vector, null);
  assert.equal(empty.doc.scoring.cvss.score, null);
  assert.equal(empty.doc.scoring.cvss.severity, null);
  assert.equal(empty.doc.classification.attack_vector, null);
  assert.equal(empty.facts.cvss.score, null);
  const none = buildCveDocument({ ...m, cvss: null, all_cvss: [v2] }, cat, NOW).doc.scoring.cvss;
  assert.equal(none.vector, null, 'without a chosen metric the others are not tried');
  // Anything else than a parse error is not swallowed.
  const broken = Object.defineProperty({ ...chosen }, 'vector', {
    get: () => {
      throw new RangeError('unreadable metric');
    },
  });
  assert.throws(() => buildCveDocument({ ...m, cvss: broken, all_cvss: [broken, v2] }, cat, NOW), {
    name: 'RangeError',
    message: 'unreadable metric',
  });
});

test('facts: KEV date, action and ransomware use; empty KEV strings become null', async () => {
  const m = await kevWindows();
  const cat = await realCatalogs();
  const { facts, doc } = buildCveDocument(m, cat, NOW);
  assert.deepEqual(facts.kev, {
    added: '2024-03-04',
    required_action:
      'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
    ransomware: 'Known',
  });
  assert.equal(doc.exploitation.kev_added_at, '2024-03-04T00:00:00.000Z');
  assert.equal(doc.temporal.kev_added_at, '2024-03-04T00:00:00.000Z');
  assert.equal(doc.exploitation.kev_flagged, true);
  const blank = buildCveDocument(
    { ...m, kev: { ...m.kev!, required_action: '', known_ransomware_campaign_use: '' } },
    cat,
    NOW,
  ).facts;
  assert.deepEqual(blank.kev, { added: '2024-03-04', required_action: null, ransomware: null });
  const noKev = buildCveDocument({ ...m, kev: null }, cat, NOW);
  assert.equal(noKev.facts.kev, null);
  assert.equal(noKev.doc.exploitation.kev_added_at, null);
  assert.equal(noKev.doc.exploitation.kev_flagged, false);
});

test("facts: the KEV catalog alone decides kev_flagged; a CVE record's CISA-ADP KEV marker without a catalog entry does not (CVE-2024-43491, CVE-2021-4043, removed by CISA)", async () => {
  for (const id of ['CVE-2024-43491', 'CVE-2021-4043']) {
    const m = await mergedOf(id, [fixture('cve5', `${id}.json`)]);
    assert.equal(m.kev, null);
    assert.match(m.cve5!.kev_date_added ?? '', /^2024-09-/, `${id}: the record carries the marker`);
    const { doc, facts } = buildCveDocument(m, await realCatalogs(), NOW);
    assert.equal(doc.exploitation.kev_flagged, false, id);
    assert.equal(doc.exploitation.kev_added_at, null, id);
    assert.equal(doc.temporal.kev_added_at, null, id);
    assert.equal(doc.scoring.bcs.factors.kev_flagged, false, id);
    assert.equal(facts.kev, null);
  }
  // SSVC "Active" still says actively exploited (exploit maturity), without the KEV flag.
  const active = buildCveDocument(
    await mergedOf('CVE-2019-7256', [fixture('cve5', 'CVE-2019-7256.json')]),
    await realCatalogs(),
    NOW,
  ).doc;
  assert.deepEqual([active.exploitation.kev_flagged, active.exploitation.actively_exploited], [false, true]);
});

test("title: the CNA's own title first; the KEV vulnerabilityName does not replace it (CVE-2024-21338)", async () => {
  const m = await mergedOf('CVE-2024-21338', [fixture('cve5', 'CVE-2024-21338.json'), fixture('kev', 'kev-cut.json')]);
  assert.deepEqual(
    m.titles.map((t) => t.source),
    ['cve5', 'kev'],
  );
  assert.ok(m.kev);
  const { doc } = buildCveDocument(m, await realCatalogs(), NOW);
  assert.equal(doc.title, 'Windows Kernel Elevation of Privilege Vulnerability');
  assert.equal(doc.exploitation.kev_flagged, true);
  // Without the CVE record, the KEV name is the title.
  const kevOnly = buildCveDocument(
    await mergedOf('CVE-2024-21338', [fixture('kev', 'kev-cut.json')]),
    await realCatalogs(),
    NOW,
  ).doc;
  assert.equal(kevOnly.title, 'Microsoft Windows Kernel Exposed IOCTL with Insufficient Access Control Vulnerability');
});

test('facts: weaknesses with their catalog names (ids without one stay bare), the first named one in the title', async () => {
  const m = await mergedOf('CVE-2023-28252', [fixture('nvd', 'CVE-2023-28252.json')]);
  const cat = await realCatalogs();
  assert.deepEqual(buildCveDocument(m, cat, NOW).facts.weaknesses, [
    'CWE-122 Heap-based Buffer Overflow',
    'CWE-787 Out-of-bounds Write',
  ]);
  const odd = buildCveDocument({ ...m, cwes: [999999, 787] }, cat, NOW);
  assert.deepEqual(odd.facts.weaknesses, ['CWE-999999', 'CWE-787 Out-of-bounds Write']);
  assert.deepEqual(odd.doc.classification.cwes, [
    { id: 999999, url: 'https://cwe.mitre.org/data/definitions/999999.html' },
    { id: 787, url: cweUrl(787) },
  ]);
  assert.equal(cweUrl(787), 'https://cwe.mitre.org/data/definitions/787.html');
  assert.equal(
    odd.facts.title,
    buildCveDocument({ ...m, cwes: [787] }, cat, NOW).facts.title,
    'the first CWE with a name gives the title',
  );
  assert.match(odd.facts.title, /Out-of-bounds Write/i);
});

test('enrichCve: the grounded provider is not called; another provider gets the facts, the previous analysis and the time', async () => {
  const m = await kevWindows();
  const cat = await realCatalogs();
  const grounded = buildCveDocument(m, cat, NOW).doc;
  let calls = 0;
  const named = (name: string): AnalysisProvider => ({
    name,
    analyze: async () => {
      calls++;
      throw new Error('must not be called');
    },
  });
  assert.deepEqual(await enrichCve(m, cat, named('grounded'), { now: NOW }), grounded);
  assert.equal(calls, 0);
  const seen: unknown[] = [];
  const previous: SageBlock = { ...grounded.sage, model: 'old', status: 'ready' };
  const answer: SageBlock = { ...grounded.sage, model: 'llm', executive_summary: 'LLM text' };
  const llm: AnalysisProvider = {
    name: 'openai:llm',
    analyze: async (facts, prev, now) => {
      seen.push(facts.cve_id, prev, now);
      return answer;
    },
  };
  const doc = await enrichCve(m, cat, llm, { now: NOW, previousSage: previous });
  assert.deepEqual(seen, ['CVE-2024-21338', previous, NOW]);
  assert.deepEqual(doc, { ...grounded, sage: answer });
  seen.length = 0;
  await enrichCve(m, cat, llm, { now: NOW });
  assert.deepEqual(seen, ['CVE-2024-21338', null, NOW]);
  // Without a clock the enrichment time is now.
  const before = Date.now();
  const live = await enrichCve(m, cat);
  const at = Date.parse(live.temporal.enriched_at);
  assert.ok(at >= before - 1 && at <= Date.now() + 1, live.temporal.enriched_at);
  assert.equal(live.sage.generated_at, live.temporal.enriched_at);
});

test('EPSS, CAPEC names, vendor slugs and a missing description in the document and the facts', async () => {
  const recs = (await cveRecords(fixture('nvd', 'CVE-2023-28252.json'))).filter((r) => r.cve_id === 'CVE-2023-28252');
  const cat = await realCatalogs();
  const { doc, facts } = buildCveDocument(
    mergeSources('CVE-2023-28252', recs, { cve_id: 'CVE-2023-28252', epss: 0.4321, percentile: 0.9876 }),
    cat,
    NOW,
  );
  // The 0.9876 percentile is in the top-5 % band (scoring.ts epssInterpretation), in the document and the facts alike.
  assert.deepEqual(doc.scoring.epss, {
    score: 0.4321,
    percentile: 0.9876,
    interpretation: 'Top 5% most likely to be exploited',
  });
  assert.deepEqual(facts.epss, doc.scoring.epss);
  assert.ok(doc.capec.length > 0);
  assert.deepEqual(
    facts.attack_patterns,
    doc.capec.map((c) => c.name),
  );
  assert.deepEqual(doc.affected.vendor_slugs, ['microsoft']);
  const m = mergeSources('CVE-2023-28252', recs);
  assert.deepEqual(buildCveDocument(m, cat, NOW).doc.scoring.epss, {
    score: null,
    percentile: null,
    interpretation: null,
  });
  const blank = buildCveDocument({ ...m, description: null }, cat, NOW);
  assert.equal(blank.doc.description, '');
  assert.equal(blank.facts.description, '');
});

test('ICS text and category: source titles and advisory titles count, each on its own line; the category reads title and description', async () => {
  const m = await mergedOf('CVE-2023-28252', [fixture('nvd', 'CVE-2023-28252.json')]);
  const cat = await realCatalogs();
  const base: MergedCve = { ...m, description: 'A flaw in the driver', titles: [], advisories: [], cwes: [] };
  assert.deepEqual(buildCveDocument(base, cat, NOW).doc.affected.device_types, []);
  const titled = buildCveDocument({ ...base, titles: [{ source: 'kev', title: 'PLC firmware flaw' }] }, cat, NOW).doc;
  assert.deepEqual(titled.affected.device_types, ['plc']);
  // A second source title that is not the chosen title counts too.
  const second = buildCveDocument(
    {
      ...base,
      titles: [
        { source: 'csaf', title: 'Acme driver flaw' },
        { source: 'kev', title: 'HMI firmware flaw' },
      ],
    },
    cat,
    NOW,
  ).doc;
  assert.equal(second.title, 'Acme driver flaw');
  assert.deepEqual(second.affected.device_types, ['hmi']);
  const advised = buildCveDocument(
    {
      ...base,
      advisories: [
        {
          advisory_id: 'ICSA-24-001-01',
          title: 'Acme SCADA server',
          url: null,
          json_url: null,
          published: null,
          fixes: [],
          vendor_fixes: [],
          remediation_categories: [],
        },
      ],
    },
    cat,
    NOW,
  ).doc;
  assert.ok(advised.affected.device_types.includes('scada'), advised.affected.device_types.join());
  // Without the line break, "driver" + "PLC" would run together and hide the device type.
  assert.equal(
    buildCveDocument({ ...base, description: 'A flaw in the driverPLC' }, cat, NOW).doc.affected.device_types.length,
    0,
  );
  assert.equal(
    buildCveDocument({ ...base, description: 'An SQL injection in the login form' }, cat, NOW).doc.classification
      .category,
    'sql-injection',
  );
  assert.equal(buildCveDocument(base, cat, NOW).doc.classification.category, 'other');
});

test('ICS vendor signal: any vendor of the CVE being an ICS vendor counts', async () => {
  const m = await mergedOf('CVE-2023-28252', [fixture('nvd', 'CVE-2023-28252.json')]);
  const cat = await realCatalogs();
  const base: MergedCve = { ...m, description: 'A flaw in the driver', titles: [], advisories: [] };
  const itOnly = buildCveDocument(base, cat, NOW).doc.affected.ics_relevance_score;
  const mixed = buildCveDocument(
    { ...base, affected: [...base.affected, { vendor: 'Siemens', product: 'Some Product', origin: 'kev' }] },
    cat,
    NOW,
  ).doc;
  assert.deepEqual(mixed.affected.vendors.slice(0, 1), ['Microsoft']);
  assert.ok(mixed.affected.vendors.includes('Siemens'));
  assert.ok(mixed.affected.ics_relevance_score > itOnly, `${mixed.affected.ics_relevance_score} > ${itOnly}`);
});
