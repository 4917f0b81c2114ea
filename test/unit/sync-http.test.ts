// Pure parts of the sync's HTTP behaviour: Retry-After parsing, backoff growth and cap, the rolling-window
// rate limiter (fake clock), ROLIE entry extraction on the real CISA feed, and the CWE zip extraction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { fixedClock } from '../../src/lib/clock.ts';
import {
  backoffDelay,
  DEFAULT_RETRY,
  displayUrl,
  parseRetryAfter,
  RollingWindowLimiter,
} from '../../src/services/sync/sync-http.ts';
import { extractCweXml, rolieEntries } from '../../src/services/sync/sync-feeds.ts';
import { nvdDate, parseNvdDate } from '../../src/services/sync/sync-nvd.ts';

const FIX = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'sync');

test('parseRetryAfter: delay-seconds, HTTP-date relative to the clock, and malformed values', () => {
  const now = new Date('2026-10-01T00:00:00Z');
  assert.equal(parseRetryAfter('7', now), 7000);
  assert.equal(parseRetryAfter(' 120 ', now), 120_000);
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter('Thu, 01 Oct 2026 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Wed, 30 Sep 2026 23:00:00 GMT', now), 0, 'a date in the past means retry now');
  assert.equal(parseRetryAfter(undefined, now), null);
  assert.equal(parseRetryAfter('-5', now), null);
  assert.equal(parseRetryAfter('1.5', now), null);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter('', now), null);
});

test('backoffDelay: grows exponentially from the base, stays within [step/2, step], and is capped', () => {
  const p = { ...DEFAULT_RETRY, baseDelayMs: 1000, maxDelayMs: 16_000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(a, p, () => 1)),
    [1000, 2000, 4000, 8000, 16000, 16000, 16000],
  );
  assert.deepEqual(
    [1, 2, 3].map((a) => backoffDelay(a, p, () => 0)),
    [500, 1000, 2000],
  );
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
      const step = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** (attempt - 1));
      const d = backoffDelay(attempt, p, () => r);
      return d >= step / 2 && d <= step;
    }),
  );
});

test('RollingWindowLimiter: at most N requests in any rolling window, waiting exactly until the oldest leaves it', async () => {
  const clock = fixedClock('2026-10-01T00:00:00Z');
  const sleeps: number[] = [];
  const limiter = new RollingWindowLimiter(5, 30_000, clock, async (ms) => {
    sleeps.push(ms);
    clock.advance(ms);
  });
  const stamps: number[] = [];
  for (let i = 0; i < 12; i++) {
    await limiter.take();
    stamps.push(clock.now().getTime());
    clock.advance(1000);
  }
  // 5 immediately, then each further request waits for the one 5 places earlier to leave the window.
  assert.deepEqual(
    sleeps,
    [25_000, 0, 0, 0, 0, 25_000].filter((x) => x > 0),
  );
  for (let i = 5; i < stamps.length; i++) assert.ok(stamps[i] - stamps[i - 5] >= 30_000, `request ${i}`);
});

test('nvdDate and displayUrl', () => {
  assert.equal(nvdDate(new Date('2026-10-01T12:34:56.789Z')), '2026-10-01T12:34:56.789');
  assert.equal(parseNvdDate('2026-10-01T12:34:56.789').toISOString(), '2026-10-01T12:34:56.789Z');
  assert.equal(parseNvdDate('2026-10-01T12:34:56.789Z').toISOString(), '2026-10-01T12:34:56.789Z');
  assert.equal(parseNvdDate('2026-10-01T14:34:56.789+02:00').toISOString(), '2026-10-01T12:34:56.789Z');
  assert.throws(() => parseNvdDate('yesterday'), /checkpoint holds "yesterday", which is not a date/);
  assert.equal(
    displayUrl('https://services.nvd.nist.gov/rest/json/cves/2.0?startIndex=0&apiKey=secret'),
    'https://services.nvd.nist.gov/rest/json/cves/2.0',
  );
});

test('rolieEntries: id, updated and self link of every entry of the real CISA OT feed', async () => {
  const doc = JSON.parse(await readFile(path.join(FIX, 'csaf', 'cisa-csaf-ot-feed-tlp-white.json'), 'utf8'));
  const entries = rolieEntries(doc);
  assert.equal(entries.length, 6);
  assert.deepEqual(entries[0], {
    id: 'ICSA-24-298-03',
    updated: '2024-10-24T06:00:00.000000Z',
    href: 'https://raw.githubusercontent.com/cisagov/CSAF/develop/csaf_files/OT/white/2024/icsa-24-298-03.json',
  });
  assert.throws(() => rolieEntries({ vulnerabilities: [] }), /not a ROLIE feed/);
  // Entries without an id, a date or a link are skipped, content.src is the fallback link.
  assert.deepEqual(
    rolieEntries({
      feed: {
        entry: [
          { id: 'A', updated: 'u' },
          { id: 'B', updated: 'u', content: { src: 'https://x/b.json' } },
        ],
      },
    }),
    [{ id: 'B', updated: 'u', href: 'https://x/b.json' }],
  );
});

test('extractCweXml: the XML entry of the real-layout zip, and clear errors for other files', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vi-cwe-'));
  try {
    const xml = await extractCweXml(path.join(FIX, 'cwe', 'cwec_latest.xml.zip'), dir);
    assert.equal(path.basename(xml), 'cwec_v4.15.xml');
    const text = await readFile(xml, 'utf8');
    assert.match(text.slice(0, 300), /<Weakness_Catalog Name="CWE" Version="4\.15" Date="2024-07-16"/);
    assert.equal((text.match(/<Weakness ID=/g) ?? []).length, 16);
    const notZip = path.join(dir, 'x.zip');
    await writeFile(notZip, '<html>maintenance</html>');
    await assert.rejects(extractCweXml(notZip, dir), /CWE: the download is not a zip file/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
