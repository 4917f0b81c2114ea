import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mergeSources } from '../../src/domain/merge.ts';
import { buildCveDocument, enrichCve } from '../../src/domain/enrich.ts';
import { confidenceTier, createOpenAiProvider, groundedAnalysis, traceableShare } from '../../src/domain/analysis.ts';
import type { SageBlock } from '../../src/domain/cve-document.ts';
import { cveRecords, fixture, realCatalogs } from '../helpers/feeds.ts';

const NOW = '2026-01-01T00:00:00.000Z';

async function built(cve: string, files: string[]) {
  const recs = (await cveRecords(...files)).filter((r) => r.cve_id === cve);
  return { merged: mergeSources(cve, recs), ...buildCveDocument(mergeSources(cve, recs), await realCatalogs(), NOW) };
}

test('confidence tiers: SOVEREIGN_AUDIT_PASS ≥ 0.90, HIGH_CONFIDENCE ≥ 0.75, MODERATE ≥ 0.50, else LOW', () => {
  assert.deepEqual([1, 0.9, 0.89, 0.75, 0.74, 0.5, 0.49, 0].map(confidenceTier), [
    'SOVEREIGN_AUDIT_PASS',
    'SOVEREIGN_AUDIT_PASS',
    'HIGH_CONFIDENCE',
    'HIGH_CONFIDENCE',
    'MODERATE',
    'MODERATE',
    'LOW',
    'LOW',
  ]);
});

test('grounded analysis: only facts of the record; richer records are more traceable than sparse ones', async () => {
  const rich = await built('CVE-2024-46886', [fixture('csaf', 'icsa-24-284-01.json')]);
  const sparse = await built('CVE-2023-6874', [fixture('csaf', 'icsa-24-284-12.json')]);
  const r = rich.doc.sage;
  const s = sparse.doc.sage;
  assert.ok(r.confidence_score! > s.confidence_score!, `${r.confidence_score} > ${s.confidence_score}`);
  assert.equal(r.confidence_tier, confidenceTier(r.confidence_score!));
  for (const sage of [r, s]) {
    assert.ok(sage.executive_summary && sage.ics_context && sage.remediation_guidance);
    assert.ok(sage.confidence_score! > 0 && sage.confidence_score! < 1);
  }
  // Every number in the grounded text comes from the record's facts.
  const facts = JSON.stringify(rich.facts);
  for (const n of `${r.executive_summary} ${r.ics_context} ${r.remediation_guidance}`.match(/\d+(?:\.\d+)+/g) ?? [])
    assert.ok(facts.includes(n), n);
  assert.match(r.ics_context!, /CISA ICS advisory ICSA-24-284-01 names this CVE\./);
  assert.match(r.remediation_guidance!, /Fixed versions differ per product/);
  assert.deepEqual(groundedAnalysis(rich.facts, NOW), r, 'deterministic');
});

function loopback(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ url: string; close: () => Promise<void>; calls: { body: string; auth: string | undefined }[] }> {
  const calls: { body: string; auth: string | undefined }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push({ body, auth: req.headers.authorization });
      handler(req, body, res);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/v1`, calls, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

test('OpenAI-compatible provider against a loopback server: request shape, answer used, confidence measured', async () => {
  const b = await built('CVE-2024-8531', [
    fixture('nvd', 'CVE-2024-8531.json'),
    fixture('csaf', 'icsa-24-289-02.json'),
  ]);
  const srv = await loopback((req, _body, res) => {
    assert.equal(req.url, '/v1/chat/completions');
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        choices: [
          {
            message: {
              content: JSON.stringify({
                executive_summary: 'CVE-2024-8531 affects Schneider Electric Data Center Expert with CVSS 7.2.',
                ics_context: 'It is named in ICSA-24-289-02. Operators run it in many plants.',
                remediation_guidance: 'Update Data Center Expert to 8.2. Version 9.9 is also rumoured.',
              }),
            },
          },
        ],
      }),
    );
  });
  try {
    const provider = createOpenAiProvider({ baseUrl: srv.url, model: 'test-model', apiKey: 'k-123' });
    const doc = await enrichCve(b.merged, await realCatalogs(), provider, { now: NOW });
    assert.equal(doc.sage.model, 'test-model');
    assert.equal(doc.sage.status, 'ready');
    assert.equal(
      doc.sage.executive_summary,
      'CVE-2024-8531 affects Schneider Electric Data Center Expert with CVSS 7.2.',
    );
    // 5 sentences: 3 grounded (ids/versions present in the facts), "Operators run it…" names no fact, "9.9" is not a fact.
    assert.equal(doc.sage.confidence_score, 0.6);
    assert.equal(doc.sage.confidence_tier, 'MODERATE');
    assert.equal(srv.calls.length, 1);
    assert.equal(srv.calls[0].auth, 'Bearer k-123');
    const sent = JSON.parse(srv.calls[0].body);
    assert.equal(sent.model, 'test-model');
    assert.equal(JSON.parse(sent.messages[1].content).cve_id, 'CVE-2024-8531');
  } finally {
    await srv.close();
  }
  assert.equal(traceableShare('CVE-2024-8531 is bad.', b.facts), 1);
});

test('provider failure never blocks enrichment: previous analysis kept and marked pending (or grounded when none)', async () => {
  const b = await built('CVE-2024-8531', [
    fixture('nvd', 'CVE-2024-8531.json'),
    fixture('csaf', 'icsa-24-289-02.json'),
  ]);
  const srv = await loopback((_req, _body, res) => {
    res.statusCode = 503;
    res.end('overloaded');
  });
  try {
    const provider = createOpenAiProvider({ baseUrl: srv.url, model: 'test-model', apiKey: null });
    const previous: SageBlock = {
      model: 'test-model',
      tier: 'full',
      executive_summary: 'old summary',
      ics_context: 'old ics',
      remediation_guidance: 'old fix',
      confidence_score: 0.8,
      confidence_tier: 'HIGH_CONFIDENCE',
      status: 'ready',
      generated_at: '2025-01-01T00:00:00.000Z',
    };
    const doc = await enrichCve(b.merged, await realCatalogs(), provider, { now: NOW, previousSage: previous });
    assert.deepEqual(doc.sage, { ...previous, status: 'pending' });
    assert.equal(doc.title, b.doc.title, 'the rest of the record is enriched as usual');
    const fresh = await enrichCve(b.merged, await realCatalogs(), provider, { now: NOW });
    assert.deepEqual(fresh.sage, { ...b.doc.sage, status: 'pending' });
    assert.equal(srv.calls.length, 2);
    assert.equal(srv.calls[0].auth, undefined);
  } finally {
    await srv.close();
  }
  // Malformed answers and network errors count as failures too (injected fetch).
  const bad = createOpenAiProvider({
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'm',
    apiKey: null,
    fetch: (async () =>
      new Response(JSON.stringify({ choices: [{ message: { content: '{"executive_summary":"x"}' } }] }), {
        status: 200,
      })) as typeof fetch,
  });
  const doc = await enrichCve(b.merged, await realCatalogs(), bad, { now: NOW });
  assert.equal(doc.sage.status, 'pending');
  const down = createOpenAiProvider({
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'm',
    apiKey: null,
    fetch: (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch,
  });
  assert.equal((await enrichCve(b.merged, await realCatalogs(), down, { now: NOW })).sage.status, 'pending');
});

test("the summary names a product that starts with its vendor's name once (CVE-2024-34750: Apache Tomcat)", async () => {
  const tomcat = await built('CVE-2024-34750', [fixture('cve5', 'CVE-2024-34750.json')]);
  assert.equal(tomcat.doc.affected.primary_vendor, 'Apache');
  assert.equal(tomcat.doc.affected.primary_product, 'Apache Tomcat');
  assert.match(tomcat.doc.sage.executive_summary!, / in Apache Tomcat\./);
  assert.doesNotMatch(tomcat.doc.sage.executive_summary!, /Apache Apache/);
  // Other products keep their vendor in front (CVE-2024-46886, Siemens).
  const siemens = await built('CVE-2024-46886', [fixture('csaf', 'icsa-24-284-01.json')]);
  assert.match(siemens.doc.sage.executive_summary!, / in Siemens SIMATIC /);
});
