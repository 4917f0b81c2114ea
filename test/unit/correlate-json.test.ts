// The correlate-cves byte writer (http/views/correlate-json.ts) against JSON.stringify of the same answer as plain
// objects (assetResult): the same bytes, whatever the text holds (quotes, control characters, non-ASCII, lone
// surrogates, emoji), with and without a page, for answers with no CVEs, and when a cached fragment is reused by a
// second answer (the card and range fragments are kept per object across calls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { correlateJson, pooledBuffers } from '../../src/http/views/correlate-json.ts';
import { assetResult, type AssetAnswer, type Decided } from '../../src/services/asset-correlation.ts';
import { rangeRows, verdict, matchRow, type Asset } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import type { CveCard, StoredRange } from '../../src/store/ranges.ts';

const HOSTILE = 'quote " backslash \\ tab \t nl \n nul \u0000 é ü 中文 \u{1F525} lone \uD800 end';

const range: AffectedRange = {
  source: 'csaf', vendor: `Siemens ${HOSTILE}`, product: 'SIMATIC S7-1500 CPU', cpe: null, status: 'affected', version: null,
  start: { version: 'V2.0', inclusive: true }, end: { version: 'V3.1.2', inclusive: false }, versionType: null, changes: [], defaultStatus: null,
  fixedIn: 'V3.1.2', runningOn: null, text: null,
};

function card(id: string, over: Partial<CveCard> = {}): CveCard {
  return {
    cve_id: id, title: `Title of ${id}: ${HOSTILE}`, severity: 'HIGH', cvss_score: 7.5, cvss_version: '3.1', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    bcs_score: 61.25, epss_score: 0.00042, epss_percentile: 0.1, kev_flagged: false, exploit_maturity: 'UNPROVEN', poc_available: false,
    has_public_exploit: false, published_at: new Date('2024-05-06T07:08:09.010Z'), ...over,
  };
}

function decided(asset: Asset, c: CveCard, rank: number): Decided {
  const rows = rangeRows([{ source: 'csaf', source_key: 'ICSA-24-001-01', ranges: [range] }]).map((r) => ({ ...r, cve_id: c.cve_id }) as StoredRange);
  const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! }));
  assert.ok(matched[0].match, 'the asset matches the range');
  const v = verdict(asset, matched);
  return { cve_id: c.cve_id, v, card: c, pk: 0, bcs: c.bcs_score, cvss: c.cvss_score ?? -1, epss: c.epss_score ?? -1, rank };
}

const asset = (version: string | null) => ({ asset_id: `plc-${HOSTILE}`, vendor: `Siemens ${HOSTILE}`, product: 'SIMATIC S7-1500 CPU', version, cpe: null });

function answer(version: string | null, cards: CveCard[], page = false): AssetAnswer {
  const a = asset(version);
  const listed = cards.map((c, i) => decided(a, c, i + 1));
  return {
    asset: a, matched_products: [{ vendor: a.vendor, product: a.product, confidence: 'exact', basis: `basis ${HOSTILE}` }],
    counts: { affected: listed.filter((d) => d.v.status === 'affected').length, not_affected: 0, needs_review: listed.filter((d) => d.v.status === 'needs_review').length },
    listed, ...(page ? { cves_page: { page: 2, page_size: 1, total: 3, total_unfiltered: 4, has_more: true } } : {}),
  };
}

const envelope = { api: { version: '1.0', request_id: 'vi-req-0123456789ab', timestamp: '2026-11-27T00:00:00.000Z', processing_ms: 3 }, meta: { took_ms: 2, sort: 'priority', filters: { affected_only: false } } };
const rest = { rejected: [{ asset_id: null, index: 3, errors: [{ code: 'missing', field: 'vendor', message: HOSTILE }], retryable: false, retry_after_seconds: null, action: 'fix_input' }], counts: { affected: 1, not_affected: 0, needs_review: 2 }, environment_id: null, stored: false };

function expected(assets: AssetAnswer[]): string {
  return JSON.stringify({ api: envelope.api, data: { assets: assets.map(assetResult), ...rest }, meta: envelope.meta });
}

test('the bytes are JSON.stringify of the same answer, hostile text included', () => {
  const cards = [card('CVE-2024-0001'), card('CVE-2024-0002', { severity: null, cvss_score: null, cvss_version: null, cvss_vector: null, epss_score: null, epss_percentile: null, published_at: null, kev_flagged: true })];
  const answers = [answer('V2.5', cards), answer(null, [cards[1]], true), answer('V9', [])];
  const bytes = correlateJson(envelope, answers, rest).bytes;
  assert.equal(bytes.toString('utf8'), expected(answers));
  const parsed = JSON.parse(bytes.toString('utf8'));
  // The statuses come from the verdicts: inside the range, and an unknown version.
  assert.deepEqual(parsed.data.assets.map((a: { cves: { status: string }[] }) => a.cves.map((c) => c.status)), [['affected', 'affected'], ['needs_review'], []]);
  assert.equal(parsed.data.assets[0].cves[1].priority_rank, 2);
  assert.equal(parsed.data.assets[0].cves[0].fixed_version, 'V3.1.2');
  // The card's fields, independently of cardFields (which both the writer and assetResult use).
  const [c1, c2] = parsed.data.assets[0].cves;
  assert.deepEqual([c1.severity, c1.cvss, c1.bcs_score, c1.epss, c1.known_exploited, c1.exploit_maturity, c1.published_at, c1._links], [
    'HIGH', { score: 7.5, version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }, 61.25, { score: 0.00042, percentile: 0.1 }, false,
    'UNPROVEN', '2024-05-06T07:08:09.010Z', { self: '/api/v1/cves/CVE-2024-0001' },
  ]);
  assert.deepEqual([c2.severity, c2.cvss, c2.epss, c2.known_exploited, c2.published_at], [null, { score: null, version: null, vector: null }, { score: null, percentile: null }, true, null]);
  assert.deepEqual(Object.keys(c1), ['cve_id', 'title', 'status', 'reason', 'match', 'range', 'fixed_version', 'severity', 'cvss', 'bcs_score', 'epss', 'known_exploited', 'exploit_maturity', 'published_at', 'priority_rank', '_links']);
  // A lone surrogate is escaped (\ud800), so it reads back unchanged.
  assert.equal(parsed.data.assets[0].cves[0].title, `Title of CVE-2024-0001: ${HOSTILE}`);
  assert.deepEqual(parsed.data.assets[1].cves_page, { page: 2, page_size: 1, total: 3, total_unfiltered: 4, has_more: true });
});

test('a card written before is written again with the new rank and verdict (fragments cached per object)', () => {
  const c = card('CVE-2024-0003');
  const first = [answer('V2.5', [c])];
  assert.equal(correlateJson(envelope, first, rest).bytes.toString('utf8'), expected(first));
  const a = asset(null);
  const again: AssetAnswer[] = [{ ...answer(null, []), listed: [{ ...decided(a, c, 7) }] }];
  const text = correlateJson(envelope, again, rest).bytes.toString('utf8');
  assert.equal(text, expected(again));
  const cve = JSON.parse(text).data.assets[0].cves[0];
  assert.deepEqual([cve.priority_rank, cve.status, cve.title], [7, 'needs_review', c.title]);
});

test('no assets and an empty rest', () => {
  const bytes = correlateJson(envelope, [], {}).bytes;
  assert.equal(bytes.toString('utf8'), JSON.stringify({ api: envelope.api, data: { assets: [] }, meta: envelope.meta }));
});

test('a buffer is reused only after its answer is released', () => {
  const one = [answer('V2.5', [card('CVE-2024-0004')])];
  const two = [answer(null, [card('CVE-2024-0005'), card('CVE-2024-0006')])];
  const a = correlateJson(envelope, one, rest);
  const held = pooledBuffers();
  // Not released: a second answer gets its own buffer, and the first answer's bytes stay as they were.
  const b = correlateJson(envelope, two, rest);
  assert.equal(a.bytes.toString('utf8'), expected(one));
  assert.equal(b.bytes.toString('utf8'), expected(two));
  a.release();
  a.release(); // a second release changes nothing
  assert.equal(pooledBuffers(), held + 1);
  // Released: the next answer that fits takes it (one fewer held), and is written correctly.
  const c = correlateJson(envelope, one, rest);
  assert.equal(pooledBuffers(), held);
  assert.equal(c.bytes.toString('utf8'), expected(one));
  b.release();
  c.release();
});
