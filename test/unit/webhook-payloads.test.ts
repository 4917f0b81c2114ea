// Webhook payloads byte for byte (src/domain/webhooks.ts; docs/webhooks.md, ADR 0088): the success status,
// second-precision timestamps, code-point truncation, the 64 KiB cut of the AI fields at each boundary (exact cap,
// surrogate pairs, the title fallback, the refusal), the test delivery and the Discord embeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  alertBody,
  discordAlertBody,
  discordTestBody,
  isoSeconds,
  isSuccessStatus,
  testBody,
  truncateText,
  type AlertPayload,
} from '../../src/domain/webhooks.ts';

function alert(over: Partial<AlertPayload['data']> = {}): AlertPayload {
  return {
    event: 'cve.alert',
    version: '1.0',
    timestamp: '2026-11-21T12:00:00Z',
    data: {
      cve_id: 'CVE-2024-3400',
      title: 'PAN-OS GlobalProtect command injection',
      cvss_score: 10,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
      patch_status: 'patched',
      kev_flagged: true,
      epss_score: 0.957,
      sage_priority: 'PATCH NOW',
      published_at: '2024-04-12T08:15:06Z',
      url: 'https://vulnintel.test/cve/CVE-2024-3400',
      executive_summary: 'Summary',
      mitigation: null,
      causal_boundary: null,
      virtual_patch: null,
      watchlist_match: { entity_type: 'vendor', entity_name: 'Palo Alto Networks' },
      ...over,
    },
  };
}

test('isSuccessStatus: 200 to 299 only', () => {
  assert.deepEqual([199, 200, 201, 204, 299, 300, 302, 404, 500].map(isSuccessStatus), [
    false,
    true,
    true,
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
});

test('isoSeconds: UTC, milliseconds dropped', () => {
  assert.equal(isoSeconds(new Date('2026-11-21T12:00:00.123Z')), '2026-11-21T12:00:00Z');
  assert.equal(isoSeconds(new Date('2026-11-21T13:30:59.999+01:00')), '2026-11-21T12:30:59Z');
  assert.equal(isoSeconds(new Date(Date.UTC(2026, 0, 1))), '2026-01-01T00:00:00Z');
});

test('truncateText: at most max code points, the last one an ellipsis when cut', () => {
  assert.equal(truncateText('abcdef', 4), 'abc…');
  assert.equal(truncateText('abcd', 4), 'abcd');
  assert.equal(truncateText('abcde', 4), 'abc…');
  assert.equal(truncateText('😀😀', 2), '😀😀', 'four UTF-16 units, two code points: not cut');
  assert.equal(truncateText('😀😀😀', 2), '😀…');
  assert.equal(truncateText('a😀b', 3), 'a😀b');
  assert.equal(truncateText('abc', 1), '…');
  assert.equal(truncateText('abc', 0), '…');
  assert.equal(truncateText('abc', -1), '…');
  assert.equal(truncateText('', 0), '');
});

// The body alertBody must give when every AI field is cut to n code points (the title to titleLimit): an independent
// statement of ADR 0088 (Array.from counts code points; a lone surrogate is one).
const cutTo = (s: string, n: number) => {
  const cps = Array.from(s);
  if (cps.length <= n) return s;
  return n <= 0 ? '…' : `${cps.slice(0, n - 1).join('')}…`;
};
function expected(p: AlertPayload, n: number, titleLimit: number | null = null): string {
  const data = { ...p.data };
  for (const f of ['executive_summary', 'mitigation', 'causal_boundary', 'virtual_patch'] as const) {
    const v = data[f];
    if (v !== null) data[f] = cutTo(v, n);
  }
  if (titleLimit !== null) data.title = cutTo(data.title, titleLimit);
  return JSON.stringify({ ...p, data });
}
const bytes = (s: string) => Buffer.byteLength(s);

test('alertBody: a body of exactly the cap is sent whole; one byte over, the AI text is cut', () => {
  const p = alert({ executive_summary: '€'.repeat(10), mitigation: '€€€' });
  const full = JSON.stringify(p);
  assert.equal(alertBody(p, bytes(full)).toString(), full);
  assert.equal(alertBody(p, bytes(full) + 1).toString(), full);
  const cut = alertBody(p, bytes(full) - 1).toString();
  assert.equal(cut, expected(p, 9));
  assert.equal(JSON.parse(cut).data.executive_summary, `${'€'.repeat(8)}…`);
  assert.equal(JSON.parse(cut).data.mitigation, '€€€');
});

// Below, every AI character takes at least 3 bytes (as the ellipsis does), so a longer cut is never a smaller body
// and the cap pins one length.
test('alertBody: the longest common length that fits, each field kept whole up to it, identifiers untouched', () => {
  const p = alert({
    executive_summary: '€'.repeat(40),
    mitigation: 'ü€'.repeat(5),
    causal_boundary: '😀',
    virtual_patch: '√'.repeat(25),
  });
  for (let n = 0; n < 40; n++) {
    const want = expected(p, n);
    assert.equal(alertBody(p, bytes(want)).toString(), want, `n = ${n}`);
    if (n > 0) assert.equal(alertBody(p, bytes(want) - 1).toString(), expected(p, n - 1), `n = ${n}, one byte less`);
  }
  const at10 = JSON.parse(alertBody(p, bytes(expected(p, 10))).toString()) as AlertPayload;
  assert.deepEqual(
    [at10.data.executive_summary, at10.data.mitigation, at10.data.causal_boundary, at10.data.virtual_patch],
    [`${'€'.repeat(9)}…`, 'ü€'.repeat(5), '😀', `${'√'.repeat(9)}…`],
  );
  const at1 = JSON.parse(alertBody(p, bytes(expected(p, 1))).toString()) as AlertPayload;
  assert.deepEqual(
    [at1.data.executive_summary, at1.data.mitigation, at1.data.causal_boundary, at1.data.virtual_patch],
    ['…', '…', '😀', '…'],
  );
  const at0 = JSON.parse(alertBody(p, bytes(expected(p, 0))).toString()) as AlertPayload;
  assert.deepEqual(
    [at0.data.executive_summary, at0.data.causal_boundary, at0.data.title, at0.data.cve_id],
    ['…', '…', p.data.title, 'CVE-2024-3400'],
  );
});

test('alertBody: surrogate pairs are never split; lone surrogates and their neighbours each count as one', () => {
  // Units at the edges of the surrogate ranges: U+D7FF and U+E000 are BMP characters, D800–DBFF + DC00–DFFF a pair,
  // a high surrogate not followed by a low one (or at the end) and a low one alone are one code point each.
  const odd = '\ud7ff\udc00\ud800\udc00\udbff\udfff\ud800\ud800\ud800\ue000\udfff\udfff\ud800\udbff€\ud83d\ude00\ud800';
  assert.equal(Array.from(odd).length, 15);
  const p = alert({ executive_summary: odd, mitigation: '€'.repeat(30) });
  for (let n = 0; n <= 17; n++) {
    const want = expected(p, n);
    assert.equal(alertBody(p, bytes(want)).toString(), want, `n = ${n}`);
  }
  const at4 = JSON.parse(alertBody(p, bytes(expected(p, 4))).toString()) as AlertPayload;
  assert.equal(at4.data.executive_summary, '\ud7ff\udc00\ud800\udc00…');
});

test('alertBody: the title is cut to 256 code points only when the AI text alone cannot make room', () => {
  const title = `${'T'.repeat(299)}!`;
  const p = alert({ title, executive_summary: '€'.repeat(500), virtual_patch: '€'.repeat(100) });
  const noAi = expected(p, 0);
  assert.equal(alertBody(p, bytes(noAi)).toString(), noAi, 'the AI text all cut, the title whole');
  assert.equal(alertBody(p, bytes(expected(p, 30))).toString(), expected(p, 30));
  const tight = JSON.parse(alertBody(p, bytes(noAi) - 1).toString()) as AlertPayload;
  assert.equal(tight.data.title, `${'T'.repeat(255)}…`);
  // The title gives back 42 bytes, one less is allowed: 7 code points of 3 bytes for each of the two AI fields.
  assert.deepEqual(
    [tight.data.executive_summary, tight.data.virtual_patch],
    [`${'€'.repeat(6)}…`, `${'€'.repeat(6)}…`],
  );
  for (const n of [0, 1, 12, 50]) {
    const want = expected(p, n, 256);
    if (bytes(want) < bytes(noAi)) assert.equal(alertBody(p, bytes(want)).toString(), want, `n = ${n}`);
  }
  const shortest = bytes(expected(p, 0, 256));
  assert.throws(() => alertBody(p, shortest - 1), {
    message: `alert for CVE-2024-3400 does not fit ${shortest - 1} bytes even without its AI text`,
  });
  assert.throws(() => alertBody(alert(), 100), {
    message: 'alert for CVE-2024-3400 does not fit 100 bytes even without its AI text',
  });
});

test('alertBody: no AI text at all and too big: the title cut, else refused', () => {
  const p = alert({ title: 'T'.repeat(400), executive_summary: null });
  const want = expected(p, 0, 256);
  assert.equal(alertBody(p, bytes(want)).toString(), want);
  assert.throws(() => alertBody(p, bytes(want) - 1), {
    message: `alert for CVE-2024-3400 does not fit ${bytes(want) - 1} bytes even without its AI text`,
  });
});

test('testBody: the webhook.test event, second-precision timestamp, id, label and the fixed message', () => {
  const body = testBody({ id: 42, label: 'SOC "prod"' }, new Date('2026-11-21T12:00:00.500Z'));
  assert.equal(
    body.toString(),
    '{"event":"webhook.test","version":"1.0","timestamp":"2026-11-21T12:00:00Z","data":{"webhook_id":42,"label":"SOC \\"prod\\"",' +
      '"message":"Test delivery from Vulnintel. Verify the signature headers; cve.alert deliveries are signed the same way."}}',
  );
});

test('discordTestBody: one embed naming the webhook', () => {
  const body = discordTestBody({ id: 7, label: 'Ops channel' }, new Date('2026-11-21T12:00:00.500Z'));
  assert.deepEqual(JSON.parse(body.toString()), {
    username: 'Vulnintel',
    embeds: [
      {
        title: 'Vulnintel test delivery',
        description: 'Webhook "Ops channel" (7) is configured.',
        timestamp: '2026-11-21T12:00:00Z',
      },
    ],
  });
  const long = JSON.parse(discordTestBody({ id: 7, label: 'L'.repeat(3000) }, new Date(0)).toString());
  assert.equal(Array.from(long.embeds[0].description as string).length, 2000);
  assert.equal(long.embeds[0].description, `Webhook "${'L'.repeat(1990)}…`);
});

test('discordAlertBody: the embed field by field', () => {
  const p = alert({ reason: 'added to KEV', executive_summary: 'Command injection in GlobalProtect; exploited.' });
  assert.deepEqual(JSON.parse(discordAlertBody(p).toString()), {
    username: 'Vulnintel',
    embeds: [
      {
        title: 'CVE-2024-3400: PAN-OS GlobalProtect command injection',
        url: 'https://vulnintel.test/cve/CVE-2024-3400',
        description: 'Command injection in GlobalProtect; exploited.',
        color: 0xd32f2f,
        fields: [
          { name: 'Priority', value: 'PATCH NOW', inline: true },
          { name: 'CVSS', value: '10', inline: true },
          { name: 'EPSS', value: '0.957', inline: true },
          { name: 'KEV', value: 'yes', inline: true },
          { name: 'Patch', value: 'patched', inline: true },
          { name: 'Match', value: 'vendor: Palo Alto Networks', inline: true },
          { name: 'Why', value: 'added to KEV', inline: false },
        ],
        timestamp: '2026-11-21T12:00:00Z',
        footer: { text: 'Vulnintel cve.alert' },
      },
    ],
  });
});

test("discordAlertBody: the alert run's reasons (one line per change) are the Why field", () => {
  // The alert run's payload (docs/alerts.md "What an alert holds") carries `reasons`, never `reason`.
  const p = alert({ reasons: ['added to KEV', 'EPSS percentile 45 → 97'] });
  const why = JSON.parse(discordAlertBody(p).toString()).embeds[0].fields.at(-1);
  assert.deepEqual(why, { name: 'Why', value: 'added to KEV; EPSS percentile 45 → 97', inline: false });
  assert.equal(
    JSON.parse(discordAlertBody(alert({ reasons: ['R'.repeat(600), 'S'.repeat(600)] })).toString()).embeds[0].fields.at(
      -1,
    ).value,
    `${'R'.repeat(600)}; ${'S'.repeat(421)}…`,
  );
  assert.equal(JSON.parse(discordAlertBody(alert({ reasons: [] })).toString()).embeds[0].fields.length, 6);
});

test('discordAlertBody: missing scores, no KEV, no reason, no summary; colour per priority', () => {
  const p = alert({
    cvss_score: null,
    epss_score: null,
    kev_flagged: false,
    executive_summary: null,
    sage_priority: 'MONITOR',
    patch_status: 'no_fix',
  });
  const e = JSON.parse(discordAlertBody(p).toString()).embeds[0];
  assert.deepEqual(
    e.fields.map((f: { name: string; value: string }) => `${f.name}=${f.value}`),
    ['Priority=MONITOR', 'CVSS=n/a', 'EPSS=n/a', 'KEV=no', 'Patch=no_fix', 'Match=vendor: Palo Alto Networks'],
  );
  assert.equal(e.description, 'PAN-OS GlobalProtect command injection');
  assert.equal(e.color, 0xfbc02d);
  assert.equal(
    JSON.parse(discordAlertBody(alert({ cvss_score: 0, epss_score: 0 })).toString()).embeds[0].fields[1].value,
    '0',
  );
  const colour = (sage_priority: AlertPayload['data']['sage_priority']) =>
    JSON.parse(discordAlertBody(alert({ sage_priority })).toString()).embeds[0].color;
  assert.deepEqual(
    [colour('PATCH NOW'), colour('PATCH NEXT'), colour('MONITOR'), colour('IGNORE')],
    [0xd32f2f, 0xf57c00, 0xfbc02d, 0x9e9e9e],
  );
  assert.equal(colour('URGENT' as AlertPayload['data']['sage_priority']), 0x9e9e9e);
  assert.equal(JSON.parse(discordAlertBody(alert({ reason: '' })).toString()).embeds[0].fields.length, 6);
});

test('discordAlertBody: Discord limits per field (title 256, description 2000, field values 1024)', () => {
  const p = alert({
    title: 'T'.repeat(300),
    executive_summary: 'S'.repeat(3000),
    patch_status: 'P'.repeat(1100),
    reason: 'R'.repeat(1025),
    watchlist_match: { entity_type: 'product', entity_name: 'N'.repeat(1100) },
  });
  const e = JSON.parse(discordAlertBody(p).toString()).embeds[0];
  assert.equal(e.title, `CVE-2024-3400: ${'T'.repeat(240)}…`);
  assert.equal(e.description, `${'S'.repeat(1999)}…`);
  assert.deepEqual(
    e.fields.slice(4).map((f: { value: string }) => f.value),
    [`${'P'.repeat(1023)}…`, `product: ${'N'.repeat(1014)}…`, `${'R'.repeat(1023)}…`],
  );
  const exact = JSON.parse(discordAlertBody(alert({ patch_status: 'P'.repeat(1024) })).toString()).embeds[0];
  assert.equal(exact.fields[4].value, 'P'.repeat(1024));
});
