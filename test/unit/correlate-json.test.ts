// The correlate-cves byte writer (http/views/correlate-json.ts) against JSON.stringify of the same answer as plain
// objects (assetResult): the same bytes, whatever the text holds (quotes, control characters, non-ASCII, lone
// surrogates, emoji), with and without a page, for answers with no CVEs, and when a cached fragment is reused by a
// second answer (the card and range fragments are kept per object across calls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AnswerWriter,
  CHUNK_BYTES,
  correlateBody,
  pooledChunks,
  refundOnError,
} from '../../src/http/views/correlate-json.ts';
import { assetResult, type AssetAnswer, type Decided } from '../../src/services/correlation-answer.ts';
import { rangeRows, verdict, matchRow, type Asset } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import type { CveCard, StoredRange } from '../../src/store/ranges.ts';

const HOSTILE = 'quote " backslash \\ tab \t nl \n nul \u0000 é ü 中文 \u{1F525} lone \uD800 end';

const range: AffectedRange = {
  source: 'csaf',
  vendor: `Siemens ${HOSTILE}`,
  product: 'SIMATIC S7-1500 CPU',
  cpe: null,
  status: 'affected',
  version: null,
  start: { version: 'V2.0', inclusive: true },
  end: { version: 'V3.1.2', inclusive: false },
  versionType: null,
  changes: [],
  defaultStatus: null,
  fixedIn: 'V3.1.2',
  runningOn: null,
  text: null,
};

function card(id: string, over: Partial<CveCard> = {}): CveCard {
  return {
    cve_id: id,
    title: `Title of ${id}: ${HOSTILE}`,
    severity: 'HIGH',
    cvss_score: 7.5,
    cvss_version: '3.1',
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    bcs_score: 61.25,
    epss_score: 0.00042,
    epss_percentile: 0.1,
    kev_flagged: false,
    exploit_maturity: 'UNPROVEN',
    poc_available: false,
    has_public_exploit: false,
    published_at: new Date('2024-05-06T07:08:09.010Z'),
    ...over,
  };
}

function decided(asset: Asset, c: CveCard, rank: number): Decided {
  const rows = rangeRows([{ source: 'csaf', source_key: 'ICSA-24-001-01', ranges: [range] }]).map(
    (r) => ({ ...r, cve_id: c.cve_id }) as StoredRange,
  );
  const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! }));
  assert.ok(matched[0].match, 'the asset matches the range');
  const v = verdict(asset, matched);
  return {
    cve_id: c.cve_id,
    v,
    card: c,
    pk: 0,
    bcs: c.bcs_score,
    cvss: c.cvss_score ?? -1,
    epss: c.epss_score ?? -1,
    rank,
  };
}

const asset = (version: string | null) => ({
  asset_id: `plc-${HOSTILE}`,
  vendor: `Siemens ${HOSTILE}`,
  product: 'SIMATIC S7-1500 CPU',
  version,
  cpe: null,
});

function answer(version: string | null, cards: CveCard[], page = false): AssetAnswer {
  const a = asset(version);
  const listed = cards.map((c, i) => decided(a, c, i + 1));
  return {
    asset: a,
    matched_products: [{ vendor: a.vendor, product: a.product, confidence: 'exact', basis: `basis ${HOSTILE}` }],
    counts: {
      affected: listed.filter((d) => d.v.status === 'affected').length,
      not_affected: 0,
      needs_review: listed.filter((d) => d.v.status === 'needs_review').length,
    },
    listed,
    ...(page ? { cves_page: { page: 2, page_size: 1, total: 3, total_unfiltered: 4, has_more: true } } : {}),
  };
}

const envelope = {
  api: { version: '1.0', request_id: 'vi-req-0123456789ab', timestamp: '2026-11-27T00:00:00.000Z', processing_ms: 3 },
  meta: { took_ms: 2, sort: 'priority', filters: { affected_only: false } },
};
const rest = {
  rejected: [
    {
      asset_id: null,
      index: 3,
      errors: [{ code: 'missing', field: 'vendor', message: HOSTILE }],
      retryable: false,
      retry_after_seconds: null,
      action: 'fix_input',
    },
  ],
  counts: { affected: 1, not_affected: 0, needs_review: 2 },
  environment_id: null,
  stored: false,
};

/** The streamed answer: its chunks in order, joined, and its writer (whose chunks the caller releases). */
async function streamed(
  answers: AssetAnswer[],
  rest_: Record<string, unknown> = rest,
): Promise<{ bytes: Buffer; chunks: Buffer[]; w: AnswerWriter; taken: number[] }> {
  const w = new AnswerWriter();
  const taken: number[] = [];
  const chunks: Buffer[] = [];
  for await (const c of correlateBody(
    w,
    envelope.api,
    answers.length,
    (i) => (taken.push(i), answers[i]),
    () => rest_,
    () => envelope.meta,
  ))
    chunks.push(c);
  return { bytes: Buffer.concat(chunks), chunks, w, taken };
}

function expected(assets: AssetAnswer[]): string {
  return JSON.stringify({ api: envelope.api, data: { assets: assets.map(assetResult), ...rest }, meta: envelope.meta });
}

test('the bytes are JSON.stringify of the same answer, hostile text included', async () => {
  const cards = [
    card('CVE-2024-0001'),
    card('CVE-2024-0002', {
      severity: null,
      cvss_score: null,
      cvss_version: null,
      cvss_vector: null,
      epss_score: null,
      epss_percentile: null,
      published_at: null,
      kev_flagged: true,
    }),
  ];
  const answers = [answer('V2.5', cards), answer(null, [cards[1]], true), answer('V9', [])];
  const { bytes, taken, w } = await streamed(answers);
  w.release();
  assert.equal(bytes.toString('utf8'), expected(answers));
  assert.deepEqual(taken, [0, 1, 2], 'each answer taken once, in order');
  const parsed = JSON.parse(bytes.toString('utf8'));
  // The statuses come from the verdicts: inside the range, and an unknown version.
  assert.deepEqual(
    parsed.data.assets.map((a: { cves: { status: string }[] }) => a.cves.map((c) => c.status)),
    [['affected', 'affected'], ['needs_review'], []],
  );
  assert.equal(parsed.data.assets[0].cves[1].priority_rank, 2);
  assert.equal(parsed.data.assets[0].cves[0].fixed_version, 'V3.1.2');
  // The card's fields, independently of cardFields (which both the writer and assetResult use).
  const [c1, c2] = parsed.data.assets[0].cves;
  assert.deepEqual(
    [c1.severity, c1.cvss, c1.bcs_score, c1.epss, c1.known_exploited, c1.exploit_maturity, c1.published_at, c1._links],
    [
      'HIGH',
      { score: 7.5, version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' },
      61.25,
      { score: 0.00042, percentile: 0.1 },
      false,
      'UNPROVEN',
      '2024-05-06T07:08:09.010Z',
      { self: '/api/v1/cves/CVE-2024-0001' },
    ],
  );
  assert.deepEqual(
    [c2.severity, c2.cvss, c2.epss, c2.known_exploited, c2.published_at],
    [null, { score: null, version: null, vector: null }, { score: null, percentile: null }, true, null],
  );
  assert.deepEqual(Object.keys(c1), [
    'cve_id',
    'title',
    'status',
    'reason',
    'match',
    'range',
    'fixed_version',
    'severity',
    'cvss',
    'bcs_score',
    'epss',
    'known_exploited',
    'exploit_maturity',
    'published_at',
    'priority_rank',
    '_links',
  ]);
  // A lone surrogate is escaped (\ud800), so it reads back unchanged.
  assert.equal(parsed.data.assets[0].cves[0].title, `Title of CVE-2024-0001: ${HOSTILE}`);
  assert.deepEqual(parsed.data.assets[1].cves_page, {
    page: 2,
    page_size: 1,
    total: 3,
    total_unfiltered: 4,
    has_more: true,
  });
});

test('a card written before is written again with the new rank and verdict (fragments cached per object)', async () => {
  const c = card('CVE-2024-0003');
  const first = [answer('V2.5', [c])];
  assert.equal((await streamed(first)).bytes.toString('utf8'), expected(first));
  const a = asset(null);
  const again: AssetAnswer[] = [{ ...answer(null, []), listed: [{ ...decided(a, c, 7) }] }];
  const text = (await streamed(again)).bytes.toString('utf8');
  assert.equal(text, expected(again));
  const cve = JSON.parse(text).data.assets[0].cves[0];
  assert.deepEqual([cve.priority_rank, cve.status, cve.title], [7, 'needs_review', c.title]);
});

test('no assets and an empty rest', async () => {
  const { bytes } = await streamed([], {});
  assert.equal(
    bytes.toString('utf8'),
    JSON.stringify({ api: envelope.api, data: { assets: [] }, meta: envelope.meta }),
  );
});

test('an answer larger than a chunk comes in whole chunks as they fill, its text split anywhere, and is the same bytes', async () => {
  // Enough CVEs for several chunks: entries, and multi-byte characters, cross chunk boundaries.
  const cards = Array.from({ length: 1500 }, (_, i) => card(`CVE-2024-${String(10000 + i)}`));
  const answers = [answer('V2.5', cards), answer(null, cards.slice(0, 300))];
  const { bytes, chunks, w } = await streamed(answers);
  assert.equal(bytes.toString('utf8'), expected(answers));
  assert.ok(bytes.length > 3 * CHUNK_BYTES, `answer of ${bytes.length} bytes`);
  // Every chunk but the last ones of an asset is whole: the stream does not hand out small pieces.
  assert.ok(chunks.filter((c) => c.length === CHUNK_BYTES).length >= 3, chunks.map((c) => c.length).join(','));
  w.release();
});

test('pooled chunks are reused only after their answer is released, and an answer keeps its bytes until then', async () => {
  const one = [answer('V2.5', [card('CVE-2024-0004')])];
  const two = [answer(null, [card('CVE-2024-0005'), card('CVE-2024-0006')])];
  const a = await streamed(one);
  const held = pooledChunks();
  // Not released: the second answer takes other chunks, and the first answer's bytes stay as they were.
  const b = await streamed(two);
  assert.equal(Buffer.concat(a.chunks).toString('utf8'), expected(one));
  assert.equal(Buffer.concat(b.chunks).toString('utf8'), expected(two));
  assert.equal(pooledChunks(), Math.max(0, held - 1));
  a.w.release();
  a.w.release(); // a second release changes nothing
  assert.equal(pooledChunks(), Math.max(0, held - 1) + 1);
  // Released: the next answer takes that chunk (one fewer held), and is written correctly.
  const c = await streamed(one);
  assert.equal(pooledChunks(), Math.max(0, held - 1));
  assert.equal(c.bytes.toString('utf8'), expected(one));
  b.w.release();
  c.w.release();
});

test('a very large answer takes pooled chunks only for its first part: it is never held whole', async () => {
  const before = pooledChunks();
  const cards = Array.from({ length: 40000 }, (_, i) => card(`CVE-2025-${String(10000 + i)}`));
  const big = [answer('V2.5', cards)];
  const w = new AnswerWriter();
  let n = 0;
  let size = 0;
  for await (const chunk of correlateBody(
    w,
    envelope.api,
    1,
    () => big[0],
    () => rest,
    () => envelope.meta,
  )) {
    n++;
    size += chunk.length;
  }
  w.release();
  assert.ok(size > 40 * 1024 * 1024, `${size} bytes`);
  // At most 32 MB of its chunks went back to the pool (the rest were the garbage collector's once written).
  assert.ok(
    pooledChunks() - before <= (32 << 20) / CHUNK_BYTES,
    `pool grew by ${pooledChunks() - before} chunks of ${n}`,
  );
});

test('a failure while the answer is written refunds the call once and goes on; a client leaving early refunds nothing', async () => {
  const answers = [answer('V2.5', [card('CVE-2024-0007')]), answer('V2.5', [card('CVE-2024-0008')])];
  let refunds = 0;
  const fail = async () => {
    refunds++;
  };
  const broken = correlateBody(
    new AnswerWriter(),
    envelope.api,
    2,
    (i) => {
      if (i === 1) throw new Error('defect in asset 1');
      return answers[i];
    },
    () => rest,
    () => envelope.meta,
  );
  const got: Buffer[] = [];
  await assert.rejects(async () => {
    for await (const c of refundOnError(broken, fail)) got.push(c);
  }, /defect in asset 1/);
  assert.equal(refunds, 1);
  // Left early: the iteration ends without an error, and nothing is refunded.
  for await (const c of refundOnError(
    correlateBody(
      new AnswerWriter(),
      envelope.api,
      2,
      (i) => answers[i],
      () => rest,
      () => envelope.meta,
    ),
    fail,
  )) {
    assert.ok(c.length > 0);
    break;
  }
  assert.equal(refunds, 1);
});

test("in an environment: each CVE's decision and, where a vendor states one, its statements beside it; the same bytes", async () => {
  const cards = [card('CVE-2024-0001'), card('CVE-2024-0002'), card('CVE-2024-0003')];
  const a = answer('V2.5', cards);
  const said = {
    id: 'ICSA-24-001-01#2',
    by: 'vendor' as const,
    status: 'fixed' as const,
    advisory_id: 'ICSA-24-001-01',
    product_name: `S7-1500 ${HOSTILE}`,
    justification: null,
  };
  const inEnv: AssetAnswer = {
    ...a,
    decisions: {
      marks: new Map([
        ['CVE-2024-0001', { status: 'fixed', open: false, review_again: true }],
        ['CVE-2024-0002', null],
      ]),
      counts: {
        open: 2,
        undecided: 2,
        under_investigation: 0,
        affected: 0,
        not_affected: 0,
        fixed: 1,
        review_again: 1,
      },
      stated: new Map([
        ['CVE-2024-0001', [said]],
        [
          'CVE-2024-0003',
          [said, { ...said, id: 'ICSA-24-001-01#3', status: 'not_affected', justification: 'component_not_present' }],
        ],
      ]),
    },
  };
  const { bytes, w } = await streamed([inEnv]);
  w.release();
  assert.equal(bytes.toString('utf8'), expected([inEnv]));
  const cves = JSON.parse(bytes.toString('utf8')).data.assets[0].cves;
  assert.deepEqual(
    cves.map((c: { decision: unknown; vendor_statements?: { id: string }[] }) => [
      c.decision,
      c.vendor_statements?.map((s) => s.id),
    ]),
    [
      [{ status: 'fixed', open: false, review_again: true }, ['ICSA-24-001-01#2']],
      [null, undefined],
      [null, ['ICSA-24-001-01#2', 'ICSA-24-001-01#3']],
    ],
  );
  assert.deepEqual(Object.keys(cves[0]).slice(-3), ['decision', 'vendor_statements', '_links'], 'beside the decision');
});
