// The v2 response writer: byte-for-byte JSON.stringify of the documented object, written in
// chunks, and able to write an answer larger than any JavaScript string (the old writer joined one string and
// threw RangeError: Invalid string length, a 500 after the hosts were stored).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants } from 'node:buffer';
import { correlationBody, hostsJson } from '../../../src/http/routes/v2/stream.ts';
import { negotiateEncoding } from '../../../src/http/content-encoding.ts';
import type { Correlation } from '../../../src/services/windows-correlation.ts';
import type { HostView, PublicCve } from '../../../src/domain/windows/view.ts';

function cve(id: string, reason: string): PublicCve {
  return {
    cve_id: id,
    status: 'confirmed open',
    fixed_build: '10.0.17763.8880',
    kb: 'KB5094123',
    source: 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2026-Jun',
    severity: 'Important',
    known_exploited: false,
    note: null,
    priority_rank: 1,
    priority_reason: reason,
    fix: { available: true, action: 'Install KB5094123', source: null, derived: false },
    references: {
      nvd_url: `https://nvd.nist.gov/vuln/detail/${id}`,
      cve_org_url: `https://www.cve.org/CVERecord?id=${id}`,
      vendor_advisories: [],
      cisa_ics_advisories: [],
      other_references: [],
      other_references_total: 0,
    },
  };
}

function hostView(assetId: string, cves: PublicCve[], paged = false): HostView {
  return {
    asset_id: assetId,
    microsoft_product: 'Windows Server 2019',
    candidate_products: null,
    patch_resolved: true,
    end_of_life: false,
    map_note: null,
    labels: [],
    counts: { confirmed_open: cves.length, cleared: 0, needs_review: 0 },
    fix_groups: [],
    warnings: [],
    cves,
    ...(paged ? { cves_page: { page: 1, page_size: 2, total: 2, total_unfiltered: 3, has_more: false } } : {}),
  };
}

async function collect(gen: AsyncGenerator<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of gen) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

test('the streamed body is exactly JSON.stringify of the response object (cves last in each host, as before)', async () => {
  const shared = [cve('CVE-2026-41108', 'Open: "quoted" \u2028 text'), cve('CVE-2026-41109', 'ünïcode')];
  const c: Correlation = {
    assets: [hostView('a1', shared), hostView('a2', shared, true), hostView('a3', [])],
    rejected: [
      {
        asset_id: null,
        index: 3,
        errors: [{ code: 'forbidden_value', field: 'asset_id', message: 'm' }],
        retryable: false,
        retry_after_seconds: null,
        action: 'fix_input',
      },
    ],
    software_stored: 2,
    software_rejected: [],
    fix_summary: [],
    microsoft_data_as_of: '2026-07-05T14:46:17Z',
  };
  const api = {
    version: '2.0.0',
    request_id: 'vi-req-0123456789ab',
    timestamp: '2026-07-10T12:00:00.000Z',
    processing_ms: 3,
  };
  const meta = { api_version: '2', microsoft_data_as_of: c.microsoft_data_as_of, took_ms: 5, sort: 'priority' };
  const text = await collect(correlationBody(api, c, () => meta));
  const expected = JSON.stringify({
    api,
    data: {
      assets: c.assets.map(({ cves, ...rest }) => ({ ...rest, cves })),
      rejected: c.rejected,
      software_stored: 2,
      software_rejected: [],
      fix_summary: [],
    },
    meta,
  });
  assert.equal(text, expected);
});

test('an answer longer than the longest string V8 can build is written, in bounded chunks', async () => {
  // 200 hosts sharing one ~3 MB CVE list: about 600 MB of JSON, more than constants.MAX_STRING_LENGTH characters.
  const list = Array.from({ length: 1000 }, (_, i) => cve(`CVE-2024-${String(10000 + i)}`, 'x'.repeat(3000)));
  const hosts = Array.from({ length: 200 }, (_, i) => hostView(`h${i}`, list));
  let bytes = 0;
  let largest = 0;
  let first = '';
  let last: Buffer = Buffer.alloc(0);
  for await (const chunk of hostsJson('{"data":{"assets":[', hosts, () => ']}}')) {
    if (!first) first = chunk.toString();
    bytes += chunk.length;
    largest = Math.max(largest, chunk.length);
    last = chunk;
  }
  assert.ok(bytes > constants.MAX_STRING_LENGTH, `${bytes} bytes`);
  assert.ok(largest <= 256 * 1024, `chunks stay small (${largest})`);
  assert.equal(first, '{"data":{"assets":[');
  assert.equal(last.toString(), ']}}');
});

test('Accept-Encoding: br first, gzip next, q-values honoured, identity otherwise', () => {
  assert.equal(negotiateEncoding('gzip, deflate, br'), 'br');
  assert.equal(negotiateEncoding('gzip'), 'gzip');
  assert.equal(negotiateEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(negotiateEncoding('gzip;q=0.4, br;q=0.8'), 'br');
  assert.equal(negotiateEncoding('identity'), null);
  assert.equal(negotiateEncoding(undefined), null);
  assert.equal(negotiateEncoding('*'), 'br');
  assert.equal(negotiateEncoding('*;q=0'), null);
});
