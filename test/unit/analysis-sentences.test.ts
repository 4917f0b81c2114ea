// The grounded analysis sentence by sentence (spec §2.3 `sage`), the traceable share of a provider's text and the
// OpenAI-compatible provider's request and answer handling (injected fetch, no network).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSources } from '../../src/domain/merge.ts';
import { buildCveDocument } from '../../src/domain/enrich.ts';
import {
  createOpenAiProvider,
  groundedAnalysis,
  groundedProvider,
  GROUNDED_MODEL,
  traceableShare,
  type AnalysisFacts,
} from '../../src/domain/analysis.ts';
import { cveRecords, fixture, realCatalogs } from '../helpers/feeds.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const LIMIT = 'Limit network exposure of the affected systems and monitor them for exploitation attempts.';
const IT = 'Treat it as an IT issue unless the product runs inside the control network.';
const LOSS = 'The availability impact is HIGH, which in a control system can mean loss of view or loss of control.';
const NO_FIX =
  'No fix is referenced by the sources; restrict access to the affected product until the vendor publishes one.';

async function factsOf(cve: string, files: string[]): Promise<AnalysisFacts> {
  const recs = (await cveRecords(...files)).filter((r) => r.cve_id === cve);
  return buildCveDocument(mergeSources(cve, recs), await realCatalogs(), NOW).facts;
}
const siemens = () => factsOf('CVE-2024-46886', [fixture('csaf', 'icsa-24-284-01.json')]);
const kevWindows = () =>
  factsOf('CVE-2024-21338', [fixture('nvd', 'CVE-2024-21338.json'), fixture('kev', 'kev-cut.json')]);

test('grounded analysis of a CSAF record (ICSA-24-284-01): every sentence and the 0.9 confidence', async () => {
  const sage = groundedAnalysis(await siemens(), NOW);
  assert.deepEqual(sage, {
    model: GROUNDED_MODEL,
    tier: 'full',
    executive_summary:
      "CVE-2024-46886 is rated MEDIUM (CVSS 3.1 base score 4.7): url redirection to untrusted site ('open redirect') in Siemens SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0). " +
      'An attacker needs network access, without privileges, with user interaction. No public exploit or proof of concept is referenced.',
    ics_context:
      'CISA ICS advisory ICSA-24-284-01 names this CVE. The record mentions http. Device types: plc. ICS relevance is 1 (ICS-relevant); layer OT.',
    remediation_guidance:
      'Fixed versions differ per product; check each asset with POST /api/v1/assets/correlate-cves. Vendor guidance: Update to V3.1.4 or later version ' +
      LIMIT,
    // 10 sentences, only the closing advice is not traceable.
    confidence_score: 0.9,
    confidence_tier: 'SOVEREIGN_AUDIT_PASS',
    status: 'ready',
    generated_at: NOW,
  });
  assert.equal(GROUNDED_MODEL, 'vulnintel-grounded-1');
});

test('grounded analysis of a KEV record with ransomware use (CVE-2024-21338): KEV sentence, required action, fix URL', async () => {
  const sage = groundedAnalysis(await kevWindows(), NOW);
  assert.equal(
    sage.executive_summary,
    'CVE-2024-21338 is rated HIGH (CVSS 3.1 base score 7.8): untrusted pointer dereference in Microsoft Windows. An attacker needs local access, with low privileges, without user interaction. ' +
      'CISA lists it as known exploited since 2024-03-04 (exploit maturity WEAPONIZED), with known ransomware use.',
  );
  assert.equal(sage.ics_context, `ICS relevance is 0 (not ICS-relevant); layer OS. ${IT}`);
  assert.equal(
    sage.remediation_guidance,
    'CISA required action: Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable. ' +
      `A fix is referenced at https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-21338. ${LIMIT}`,
  );
  // 8 sentences, 6 traceable: 0.75 exactly.
  assert.equal(sage.confidence_score, 0.75);
  assert.equal(sage.confidence_tier, 'HIGH_CONFIDENCE');
});

test('grounded analysis of an ICS record without fix (CVE-2023-6874): loss-of-control note, no-fix advice, 5/8 rounds to 0.63', async () => {
  const sage = groundedAnalysis(await factsOf('CVE-2023-6874', [fixture('csaf', 'icsa-24-284-12.json')]), NOW);
  assert.equal(
    sage.ics_context,
    `CISA ICS advisory ICSA-24-284-12 names this CVE. ICS relevance is 0.85 (ICS-relevant); layer OT. ${LOSS}`,
  );
  assert.equal(sage.remediation_guidance, `${NO_FIX} ${LIMIT}`);
  assert.equal(sage.confidence_score, 0.63);
  assert.equal(sage.confidence_tier, 'MODERATE');
});

test('grounded analysis of a functional exploit (CVE-2023-28252, NVD): one source, singular', async () => {
  const f = await factsOf('CVE-2023-28252', [fixture('nvd', 'CVE-2023-28252.json')]);
  const sage = groundedAnalysis(f, NOW);
  assert.equal(
    sage.executive_summary,
    'CVE-2023-28252 is rated HIGH (CVSS 3.1 base score 7.8): heap-based buffer overflow in Microsoft windows 10 1507. An attacker needs local access, with low privileges, without user interaction. ' +
      'A functional public exploit is referenced (1 source).',
  );
  // 7 sentences, 5 traceable (the exploit sentence is).
  assert.equal(groundedAnalysis(f, NOW).confidence_score, 0.71);
  assert.equal(groundedAnalysis({ ...f, exploit_maturity: 'POC' }, NOW).confidence_score, 0.71);
  assert.equal(
    groundedAnalysis({ ...f, exploit_evidence: 2 }, NOW).executive_summary!.endsWith(
      'A functional public exploit is referenced (2 sources).',
    ),
    true,
  );
  assert.equal(
    groundedAnalysis({ ...f, exploit_evidence: 0 }, NOW).executive_summary!.endsWith(
      'A functional public exploit is referenced (0 sources).',
    ),
    true,
  );
});

test('summary: no CVSS score, with and without a vendor or product', async () => {
  const f = await siemens();
  const noScore = { ...f, cvss: { ...f.cvss, score: null } };
  assert.equal(groundedAnalysis(noScore, NOW).confidence_score, 0.9, 'the no-score sentence is traceable');
  assert.equal(
    groundedAnalysis(noScore, NOW).executive_summary!.split('. ')[0],
    'CVE-2024-46886 affects Siemens SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0); its sources give no CVSS score',
  );
  assert.match(
    groundedAnalysis({ ...noScore, vendor: null, product: null }, NOW).executive_summary!,
    /^CVE-2024-46886; its sources give no CVSS score\. An attacker/,
  );
  assert.match(
    groundedAnalysis({ ...noScore, vendor: null }, NOW).executive_summary!,
    /^CVE-2024-46886 affects SIMATIC Drive Controller CPU 1504D TF \(6ES7615-4DF10-0AB0\); its/,
  );
  assert.match(
    groundedAnalysis({ ...f, product: null }, NOW).executive_summary!,
    /^CVE-2024-46886 is rated MEDIUM \(CVSS 3\.1 base score 4\.7\): url redirection to untrusted site \('open redirect'\) in Siemens\. /,
  );
  assert.match(
    groundedAnalysis({ ...f, vendor: null, product: null }, NOW).executive_summary!,
    /^CVE-2024-46886 is rated MEDIUM \(CVSS 3\.1 base score 4\.7\): url redirection to untrusted site \('open redirect'\)\. An attacker/,
  );
});

test('summary: the first weakness only, its CWE number stripped (multi-digit ids), none without a name', async () => {
  const f = await siemens();
  const first = (weaknesses: string[]) =>
    groundedAnalysis({ ...f, weaknesses, vendor: null, product: null }, NOW).executive_summary!.split('. ')[0];
  assert.equal(
    first(['CWE-1021 Improper Restriction of Rendered UI Layers', 'CWE-79 XSS']),
    'CVE-2024-46886 is rated MEDIUM (CVSS 3.1 base score 4.7): improper restriction of rendered ui layers',
  );
  assert.equal(first(['CWE-1021']), 'CVE-2024-46886 is rated MEDIUM (CVSS 3.1 base score 4.7)');
  assert.equal(
    first(['CWE-20   Improper Input Validation']),
    'CVE-2024-46886 is rated MEDIUM (CVSS 3.1 base score 4.7): improper input validation',
  );
  assert.equal(first([]), 'CVE-2024-46886 is rated MEDIUM (CVSS 3.1 base score 4.7)');
});

test('summary: attack vector, privileges and user interaction spelled out, each part optional', async () => {
  const f = await siemens();
  const attack = (cvss: Partial<AnalysisFacts['cvss']>) =>
    groundedAnalysis({ ...f, cvss: { ...f.cvss, ...cvss } }, NOW)
      .executive_summary!.split('. ')
      .find((s) => s.startsWith('An attacker')) ?? null;
  assert.equal(attack({}), 'An attacker needs network access, without privileges, with user interaction');
  assert.equal(
    attack({ attack_vector: 'ADJACENT_NETWORK', privileges_required: 'LOW', user_interaction: 'NONE' }),
    'An attacker needs adjacent network access, with low privileges, without user interaction',
  );
  assert.equal(
    attack({ attack_vector: 'PHYSICAL', privileges_required: 'HIGH', user_interaction: 'ACTIVE' }),
    'An attacker needs physical access, with high privileges, with user interaction',
  );
  assert.equal(attack({ privileges_required: null, user_interaction: null }), 'An attacker needs network access');
  assert.equal(attack({ privileges_required: null }), 'An attacker needs network access, with user interaction');
  assert.equal(attack({ user_interaction: null }), 'An attacker needs network access, without privileges');
  assert.equal(attack({ attack_vector: null }), null);
  assert.equal(attack({ attack_vector: '' }), null);
});

test('summary: KEV without ransomware, proof of concept (singular and plural), nothing referenced', async () => {
  const f = await kevWindows();
  const last = (x: AnalysisFacts) =>
    groundedAnalysis(x, NOW)
      .executive_summary!.split(/(?<=\.) /)
      .at(-1);
  assert.equal(
    last({ ...f, kev: { ...f.kev!, ransomware: 'Unknown' } }),
    'CISA lists it as known exploited since 2024-03-04 (exploit maturity WEAPONIZED).',
  );
  assert.equal(
    last({ ...f, kev: { ...f.kev!, ransomware: null } }),
    'CISA lists it as known exploited since 2024-03-04 (exploit maturity WEAPONIZED).',
  );
  assert.equal(
    last({ ...f, kev: null, exploit_maturity: 'POC', exploit_evidence: 0 }),
    "CISA's SSVC assessment reports a public proof of concept.",
  );
  assert.equal(
    last({ ...f, kev: null, exploit_maturity: 'POC', exploit_evidence: 1 }),
    'A proof of concept is referenced (1 source).',
  );
  assert.equal(
    last({ ...f, kev: null, exploit_maturity: 'POC', exploit_evidence: 3 }),
    'A proof of concept is referenced (3 sources).',
  );
  assert.equal(
    last({ ...f, kev: null, exploit_maturity: 'NONE', exploit_evidence: 3 }),
    'No public exploit or proof of concept is referenced.',
  );
  assert.equal(
    last({ ...f, kev: null, exploit_maturity: 'WEAPONIZED', exploit_evidence: 3 }),
    'No public exploit or proof of concept is referenced.',
  );
});

test('summary: EPSS sentence only with both score and percentile, as a percentage with two decimals', async () => {
  const f = await siemens();
  const last = (epss: AnalysisFacts['epss']) =>
    groundedAnalysis({ ...f, epss }, NOW)
      .executive_summary!.split(/(?<=\.) /)
      .at(-1);
  assert.equal(
    last({ score: 0.12345, percentile: 0.97, interpretation: 'Top 5%' }),
    'EPSS estimates a 12.35% probability of exploitation in the next 30 days (top 5%).',
  );
  assert.equal(
    last({ score: 0.5, percentile: 0.5, interpretation: 'MODERATE' }),
    'EPSS estimates a 50% probability of exploitation in the next 30 days (moderate).',
  );
  assert.equal(
    last({ score: 0.12345, percentile: null, interpretation: null }),
    'No public exploit or proof of concept is referenced.',
  );
  assert.equal(
    last({ score: null, percentile: 0.97, interpretation: 'Top 5%' }),
    'No public exploit or proof of concept is referenced.',
  );
  assert.equal(
    last({ score: 0.00004, percentile: 0, interpretation: null }),
    'EPSS estimates a 0% probability of exploitation in the next 30 days (undefined).',
  );
  // Five sentences in the summary, all traceable.
  const sage = groundedAnalysis({ ...f, epss: { score: 0.5, percentile: 0.5, interpretation: 'x' } }, NOW);
  assert.equal(sage.confidence_score, 0.91);
});

test('ICS context: lists joined with commas, availability note only for ICS-relevant HIGH impact, IT advice only when not relevant', async () => {
  const f = await siemens();
  const ics = (o: Partial<AnalysisFacts>) => groundedAnalysis({ ...f, ...o }, NOW).ics_context;
  const two = {
    ...f.ics,
    advisories: ['ICSA-24-284-01', 'ICSA-24-289-02'],
    protocols: ['modbus', 'http'],
    device_types: ['plc', 'hmi'],
  };
  assert.equal(
    ics({ ics: two }),
    'CISA ICS advisory ICSA-24-284-01, ICSA-24-289-02 names this CVE. The record mentions modbus, http. Device types: plc, hmi. ICS relevance is 1 (ICS-relevant); layer OT.',
  );
  const none = { ...f.ics, advisories: [], protocols: [], device_types: [] };
  assert.equal(ics({ ics: none }), 'ICS relevance is 1 (ICS-relevant); layer OT.');
  assert.equal(
    ics({ ics: none, cvss: { ...f.cvss, availability_impact: 'HIGH' } }),
    `ICS relevance is 1 (ICS-relevant); layer OT. ${LOSS}`,
  );
  assert.equal(
    ics({ ics: none, cvss: { ...f.cvss, availability_impact: 'LOW' } }),
    'ICS relevance is 1 (ICS-relevant); layer OT.',
  );
  assert.equal(
    ics({
      ics: { ...none, score: 0.35, relevant: false },
      layer: 'OS',
      cvss: { ...f.cvss, availability_impact: 'HIGH' },
    }),
    `ICS relevance is 0.35 (not ICS-relevant); layer OS. ${IT}`,
  );
});

test('remediation: each rule of the fix sentences and where each stops', async () => {
  const f = await siemens();
  const rem = (patch: Partial<AnalysisFacts['patch']>, o: Partial<AnalysisFacts> = {}) =>
    groundedAnalysis(
      {
        ...f,
        ...o,
        patch: { status: 'unknown', fixed_in: null, note: null, patch_url: null, vendor_guidance: null, ...patch },
      },
      NOW,
    ).remediation_guidance;
  assert.equal(rem({}), `${NO_FIX} ${LIMIT}`);
  assert.equal(
    rem({ fixed_in: { product: 'SIMATIC S7-1500', version: 'V3.1.4' } }),
    `Update SIMATIC S7-1500 to V3.1.4 or later, as the advisory states. ${LIMIT}`,
  );
  // 3 summary + 4 ICS + update sentence traceable, the closing advice not: 8 of 9.
  assert.equal(
    groundedAnalysis(
      {
        ...f,
        patch: {
          status: 'unknown',
          fixed_in: { product: 'SIMATIC S7-1500', version: 'V3.1.4' },
          note: null,
          patch_url: null,
          vendor_guidance: null,
        },
      },
      NOW,
    ).confidence_score,
    0.89,
  );
  assert.equal(
    rem({
      status: 'patched',
      fixed_in: { product: 'SIMATIC S7-1500', version: 'V3.1.4' },
      patch_url: 'https://example.test/fix',
    }),
    `Update SIMATIC S7-1500 to V3.1.4 or later, as the advisory states. A fix is referenced at https://example.test/fix. ${LIMIT}`,
  );
  assert.equal(rem({ status: 'patched' }), `A known patch or fix source is referenced. ${LIMIT}`);
  assert.equal(
    rem({ status: 'varies_by_product', patch_url: 'https://example.test/fix' }),
    `Fixed versions differ per product; check each asset with POST /api/v1/assets/correlate-cves. ${LIMIT}`,
  );
  assert.equal(rem({ status: 'no_fix_planned', patch_url: 'https://example.test/fix' }), LIMIT);
  assert.equal(
    rem({ vendor_guidance: 'Restrict port 102.' }),
    `Vendor guidance: Restrict port 102. ${NO_FIX} ${LIMIT}`,
  );
  assert.equal(
    rem({}, { kev: { added: '2024-03-04', required_action: 'Apply updates.', ransomware: null } }),
    `CISA required action: Apply updates. ${NO_FIX} ${LIMIT}`,
  );
  assert.equal(
    rem({}, { kev: { added: '2024-03-04', required_action: null, ransomware: null } }),
    `${NO_FIX} ${LIMIT}`,
  );
});

test('confidence: share of traceable sentences rounded to two decimals, tier from that share', async () => {
  const f = await siemens();
  // Summary 3 + ICS 4 (no advisory, protocol, device) ... build a record whose sentences are 2 of 3 traceable.
  const minimal: AnalysisFacts = {
    ...f,
    cvss: { ...f.cvss, attack_vector: null },
    kev: null,
    exploit_maturity: 'NONE',
    epss: { score: null, percentile: null, interpretation: null },
    ics: { score: 0, relevant: false, protocols: [], device_types: [], advisories: [] },
    layer: 'OS',
    patch: { status: 'patched', fixed_in: null, note: null, patch_url: null, vendor_guidance: null },
  };
  // 2 summary + 1 ICS + 1 remediation traceable; IT advice and closing advice not: 4 of 6.
  const sage = groundedAnalysis(minimal, NOW);
  assert.equal(sage.confidence_score, 0.67);
  assert.equal(sage.confidence_tier, 'MODERATE');
  const worse = groundedAnalysis({ ...minimal, patch: { ...minimal.patch, status: 'unknown' } }, NOW);
  // 3 traceable of 6.
  assert.equal(worse.confidence_score, 0.5);
  assert.equal(worse.confidence_tier, 'MODERATE');
});

test('the grounded provider is named grounded and returns the grounded analysis', async () => {
  const f = await siemens();
  assert.equal(groundedProvider.name, 'grounded');
  assert.deepEqual(await groundedProvider.analyze(f, null, NOW), groundedAnalysis(f, NOW));
});

test('traceable share: sentence splitting, fact tokens (ids, CWE, ICSA, versions, percentages) and mentions', async () => {
  const f = await siemens();
  assert.equal(traceableShare('', f), 0);
  assert.equal(traceableShare('   ', f), 0);
  assert.equal(traceableShare('CVE-2024-46886 is bad.', f), 1);
  assert.equal(traceableShare('cve-2024-46886 is bad.', f), 1, 'ids match whatever their case');
  assert.equal(
    traceableShare('Siemens ships it. Nobody knows.', f),
    0.5,
    'a vendor mention counts, a sentence without any fact does not',
  );
  assert.equal(traceableShare('siemens ships it! Really? Yes.', f), 0.33, '! and ? end sentences');
  assert.equal(
    traceableShare('The SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0) is hit.', f),
    1,
    'product mention',
  );
  assert.equal(traceableShare('Update to 3.1.4 now.', f), 1, 'a version that the facts hold');
  assert.equal(traceableShare('Update to V3.1.4 now.', f), 1, 'a v-prefixed version');
  assert.equal(traceableShare('Update to 3.1.5 now.', f), 0, 'a version the facts do not hold');
  assert.equal(traceableShare('CVE-2024-46886 is fixed in 9.9.', f), 0, 'one unknown token spoils the sentence');
  assert.equal(traceableShare('It is CWE-601.', f), 1);
  assert.equal(traceableShare('It is CWE-602.', f), 0);
  assert.equal(traceableShare('See ICSA-24-284-01 please.', f), 1);
  assert.equal(traceableShare('See ICSA-24-284-02 please.', f), 0);
  assert.equal(traceableShare('It scores 4.7 of 10.', f), 1, 'a decimal number');
  assert.equal(traceableShare('It is 4.7% likely.', f), 1, 'a percentage is compared without its sign');
  assert.equal(traceableShare('It is 12.34% likely.', f), 0);
  assert.equal(traceableShare('It is 1% likely.', f), 1, 'an integer percentage is compared without its sign');
  assert.equal(traceableShare('It is 77% likely.', f), 0);
  assert.equal(traceableShare('CVE-2024-99999 is another one.', f), 0, 'an unknown CVE id');
  assert.equal(traceableShare('CVE-2024-46886 is bad.   Siemens  knows.\nNo one else.', f), 0.67);
  assert.equal(traceableShare('Siemens.Nobody knows.', f), 1, 'no whitespace after the stop: one sentence');
  const anon = { ...f, vendor: null, product: null };
  assert.equal(traceableShare('Siemens ships it.', anon), 0);
  assert.equal(traceableShare('It is CVE-2024-46886.', anon), 1);
});

interface Captured {
  url: string;
  init: RequestInit;
}
function fakeFetch(answer: () => Response | Promise<Response>, calls: Captured[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init! });
    return answer();
  }) as typeof fetch;
}
const ok = (content: unknown) =>
  new Response(
    JSON.stringify({
      choices: [{ message: { content: typeof content === 'string' ? content : JSON.stringify(content) } }],
    }),
    { status: 200 },
  );

test('OpenAI provider: request shape (URL without a doubled slash, headers, body), trimmed answer, measured confidence', async () => {
  const f = await siemens();
  const calls: Captured[] = [];
  const p = createOpenAiProvider({
    baseUrl: 'https://llm.example.test/v1/',
    model: 'm-1',
    apiKey: 'sk-1',
    fetch: fakeFetch(
      () =>
        ok({
          executive_summary: '  CVE-2024-46886 hits Siemens.  ',
          ics_context: 'It is in ICSA-24-284-01.\n',
          remediation_guidance: ' Update to V3.1.4. Pray. ',
        }),
      calls,
    ),
  });
  assert.equal(p.name, 'openai:m-1');
  const sage = await p.analyze(f, null, NOW);
  assert.deepEqual(sage, {
    model: 'm-1',
    tier: 'full',
    executive_summary: 'CVE-2024-46886 hits Siemens.',
    ics_context: 'It is in ICSA-24-284-01.',
    remediation_guidance: 'Update to V3.1.4. Pray.',
    confidence_score: 0.75,
    confidence_tier: 'HIGH_CONFIDENCE',
    status: 'ready',
    generated_at: NOW,
  });
  assert.equal(calls.length, 1);
  assert.equal(calls[0].url, 'https://llm.example.test/v1/chat/completions');
  assert.equal(calls[0].init.method, 'POST');
  assert.ok(calls[0].init.signal instanceof AbortSignal);
  assert.deepEqual(calls[0].init.headers, { 'content-type': 'application/json', authorization: 'Bearer sk-1' });
  const body = JSON.parse(String(calls[0].init.body));
  assert.deepEqual(Object.keys(body), ['model', 'temperature', 'response_format', 'messages']);
  assert.equal(body.model, 'm-1');
  assert.equal(body.temperature, 0);
  assert.deepEqual(body.response_format, { type: 'json_object' });
  assert.equal(body.messages.length, 2);
  assert.deepEqual(body.messages[0], {
    role: 'system',
    content:
      'You are an ICS/OT vulnerability analyst. Use only the facts given. Reply with a JSON object with the string fields executive_summary, ics_context and remediation_guidance.',
  });
  assert.equal(body.messages[1].role, 'user');
  assert.deepEqual(JSON.parse(body.messages[1].content), f);
});

test('OpenAI provider: no key, no authorization header; a base URL without trailing slash is kept', async () => {
  const calls: Captured[] = [];
  const p = createOpenAiProvider({
    baseUrl: 'https://llm.example.test/v1',
    model: 'm',
    apiKey: null,
    fetch: fakeFetch(() => ok({ executive_summary: 'a', ics_context: 'b', remediation_guidance: 'c' }), calls),
  });
  const sage = await p.analyze(await siemens(), null, NOW);
  assert.equal(calls[0].url, 'https://llm.example.test/v1/chat/completions');
  assert.deepEqual(calls[0].init.headers, { 'content-type': 'application/json' });
  assert.equal(sage.confidence_score, 0);
  assert.equal(sage.confidence_tier, 'LOW');
});

test('OpenAI provider: each malformed answer is an error naming what is wrong', async () => {
  const f = await siemens();
  const run = (answer: () => Response) =>
    createOpenAiProvider({
      baseUrl: 'https://llm.example.test/v1',
      model: 'm',
      apiKey: null,
      fetch: fakeFetch(answer, []),
    }).analyze(f, null, NOW);
  await assert.rejects(
    run(() => new Response('overloaded', { status: 503 })),
    { message: 'analysis provider answered HTTP 503' },
  );
  await assert.rejects(
    run(() => new Response('{}', { status: 200 })),
    { message: 'analysis provider returned no message content' },
  );
  await assert.rejects(
    run(() => new Response('{"choices":[]}', { status: 200 })),
    { message: 'analysis provider returned no message content' },
  );
  await assert.rejects(
    run(() => new Response('{"choices":[{}]}', { status: 200 })),
    { message: 'analysis provider returned no message content' },
  );
  await assert.rejects(
    run(() => new Response('{"choices":[{"message":{"content":7}}]}', { status: 200 })),
    { message: 'analysis provider returned no message content' },
  );
  await assert.rejects(
    run(() => ok({ executive_summary: 'a', ics_context: 'b' })),
    { message: 'analysis provider omitted remediation_guidance' },
  );
  await assert.rejects(
    run(() => ok({ executive_summary: 'a', ics_context: '  ', remediation_guidance: 'c' })),
    { message: 'analysis provider omitted ics_context' },
  );
  await assert.rejects(
    run(() => ok({ executive_summary: 1, ics_context: 'b', remediation_guidance: 'c' })),
    { message: 'analysis provider omitted executive_summary' },
  );
  await assert.rejects(
    run(() => ok('not json')),
    SyntaxError,
  );
});

test('OpenAI provider: the request is aborted after timeoutMs, and the timer is cleared once answered', async () => {
  const f = await siemens();
  const hang = (async (_url: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((_resolve, reject) =>
      init!.signal!.addEventListener('abort', () => reject(new Error('aborted by timer'))),
    )) as typeof fetch;
  const t0 = Date.now();
  await assert.rejects(
    createOpenAiProvider({ baseUrl: 'https://x.test', model: 'm', apiKey: null, timeoutMs: 30, fetch: hang }).analyze(
      f,
      null,
      NOW,
    ),
    { message: 'aborted by timer' },
  );
  assert.ok(Date.now() - t0 < 1000);
  const calls: Captured[] = [];
  await createOpenAiProvider({
    baseUrl: 'https://x.test',
    model: 'm',
    apiKey: null,
    timeoutMs: 20,
    fetch: fakeFetch(() => ok({ executive_summary: 'a', ics_context: 'b', remediation_guidance: 'c' }), calls),
  }).analyze(f, null, NOW);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(calls[0].init.signal!.aborted, false);
});
