// The cvelistV5 source's pure parts: asset names, the releases list, the plan of archives to import, and the
// recognition of the archives by content (docs/sync.md "cve5").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAssetName, planCve5, releaseAssets, type Cve5Asset } from '../../src/services/sync/sync-cve5.ts';
import { detectFromHead } from '../../src/ingest/detect.ts';
import { zipBuffer } from '../helpers/zip-writer.ts';
import { DEFAULT_FEED_URLS } from '../../src/config.ts';

const asset = (name: string): Cve5Asset => ({
  name,
  ...parseAssetName(name)!,
  url: `https://example.test/${name}`,
  size: 1,
  published_at: null,
});
const B = (day: string) => asset(`${day}_all_CVEs_at_midnight.zip.zip`);
const D = (day: string, hhmm: string) => asset(`${day}_delta_CVEs_at_${hhmm}Z.zip`);
const E = (day: string) => asset(`${day}_delta_CVEs_at_end_of_day.zip`);
const names = (plan: Cve5Asset[]) => plan.map((a) => a.name);

test('cve5: asset names → kind, day and order key; other assets are not ours', () => {
  assert.deepEqual(parseAssetName('2024-10-24_all_CVEs_at_midnight.zip.zip'), {
    kind: 'baseline',
    day: '2024-10-24',
    key: '2024-10-24',
  });
  assert.deepEqual(parseAssetName('2024-10-24_delta_CVEs_at_0100Z.zip'), {
    kind: 'delta',
    day: '2024-10-24',
    key: '2024-10-24T0100',
  });
  assert.deepEqual(parseAssetName('2024-10-24_delta_CVEs_at_end_of_day.zip'), {
    kind: 'delta',
    day: '2024-10-24',
    key: '2024-10-24T2400',
  });
  assert.equal(parseAssetName('2024-10-24_all_CVEs_at_midnight.zip'), null);
  assert.equal(parseAssetName('Source code (zip)'), null);
  // A day's deltas sort after its baseline and before the next day's baseline.
  assert.ok(
    parseAssetName('2024-10-24_delta_CVEs_at_0000Z.zip')!.key >
      parseAssetName('2024-10-24_all_CVEs_at_midnight.zip.zip')!.key,
  );
  assert.ok(
    parseAssetName('2024-10-24_delta_CVEs_at_2300Z.zip')!.key <
      parseAssetName('2024-10-24_delta_CVEs_at_end_of_day.zip')!.key,
  );
  assert.ok(
    parseAssetName('2024-10-24_delta_CVEs_at_end_of_day.zip')!.key <
      parseAssetName('2024-10-25_delta_CVEs_at_0000Z.zip')!.key,
  );
  assert.ok(
    parseAssetName('2024-10-24_delta_CVEs_at_2300Z.zip')!.key <
      parseAssetName('2024-10-25_all_CVEs_at_midnight.zip.zip')!.key,
  );
  assert.equal(DEFAULT_FEED_URLS.cve5, 'https://api.github.com/repos/CVEProject/cvelistV5/releases');
});

test("cve5: the releases list gives each baseline and delta once, with the newest release's published_at", () => {
  const list = [
    {
      tag_name: 'cve_2024-10-24_0200Z',
      published_at: '2024-10-24T02:00:44Z',
      assets: [
        {
          name: '2024-10-24_all_CVEs_at_midnight.zip.zip',
          browser_download_url: 'https://github.com/x/b',
          size: 500,
          updated_at: '2024-10-24T02:00:40Z',
        },
        {
          name: '2024-10-24_delta_CVEs_at_0200Z.zip',
          browser_download_url: 'https://github.com/x/d2',
          size: 7,
          updated_at: '2024-10-24T02:00:41Z',
        },
      ],
    },
    {
      tag_name: 'cve_2024-10-24_0100Z',
      published_at: '2024-10-24T01:00:39Z',
      assets: [
        {
          name: '2024-10-24_all_CVEs_at_midnight.zip.zip',
          browser_download_url: 'https://github.com/x/b-old',
          size: 500,
        },
        { name: '2024-10-24_delta_CVEs_at_0100Z.zip', browser_download_url: 'https://github.com/x/d1', size: 5 },
        { name: 'notes.txt', browser_download_url: 'https://github.com/x/n', size: 5 },
      ],
    },
    null,
  ];
  const got = releaseAssets(list);
  assert.deepEqual(
    got.map((a) => [a.name, a.url, a.size, a.published_at]),
    [
      ['2024-10-24_all_CVEs_at_midnight.zip.zip', 'https://github.com/x/b', 500, '2024-10-24T02:00:44Z'],
      ['2024-10-24_delta_CVEs_at_0200Z.zip', 'https://github.com/x/d2', 7, '2024-10-24T02:00:44Z'],
      ['2024-10-24_delta_CVEs_at_0100Z.zip', 'https://github.com/x/d1', 5, '2024-10-24T01:00:39Z'],
    ],
  );
  assert.throws(() => releaseAssets({ message: 'API rate limit exceeded' }), /not a JSON array/);
});

test('cve5 plan: first run, same day, next day, further behind', () => {
  const listed = [
    B('2024-10-23'),
    D('2024-10-23', '2200'),
    D('2024-10-23', '2300'),
    B('2024-10-24'),
    D('2024-10-24', '0100'),
    D('2024-10-24', '0200'),
  ];
  // First run: newest baseline + newest delta of its day.
  assert.deepEqual(names(planCve5(listed, null)), [
    '2024-10-24_all_CVEs_at_midnight.zip.zip',
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  // A baseline without a delta yet.
  assert.deepEqual(names(planCve5([B('2024-10-24')], null)), ['2024-10-24_all_CVEs_at_midnight.zip.zip']);
  assert.throws(() => planCve5([D('2024-10-24', '0100')], null), /no baseline/);
  // Same day: only the newest delta, when newer than the checkpoint.
  assert.deepEqual(names(planCve5(listed, { baseline: B('2024-10-24').name, delta: D('2024-10-24', '0100').name })), [
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  assert.deepEqual(planCve5(listed, { baseline: B('2024-10-24').name, delta: D('2024-10-24', '0200').name }), []);
  assert.deepEqual(names(planCve5(listed, { baseline: B('2024-10-24').name, delta: null })), [
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  // Next day: the previous day's end-of-day archive (every change of that day, the last hour included), then the
  // new day's newest delta.
  const closed = [...listed, E('2024-10-23')];
  assert.deepEqual(names(planCve5(closed, { baseline: B('2024-10-23').name, delta: D('2024-10-23', '2200').name })), [
    '2024-10-23_delta_CVEs_at_end_of_day.zip',
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  assert.deepEqual(names(planCve5(closed, { baseline: B('2024-10-23').name, delta: D('2024-10-23', '2300').name })), [
    '2024-10-23_delta_CVEs_at_end_of_day.zip',
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  assert.deepEqual(names(planCve5(closed, { baseline: B('2024-10-23').name, delta: E('2024-10-23').name })), [
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  // The end-of-day archive not yet listed: the previous day's newest hourly delta only; the new day waits (its
  // deltas start at midnight, so taking them now would lose the last hour of the day before).
  assert.deepEqual(names(planCve5(listed, { baseline: B('2024-10-23').name, delta: D('2024-10-23', '2200').name })), [
    '2024-10-23_delta_CVEs_at_2300Z.zip',
  ]);
  assert.deepEqual(planCve5(listed, { baseline: B('2024-10-23').name, delta: D('2024-10-23', '2300').name }), []);
  // More than a day behind: the newest baseline and its day's newest delta.
  assert.deepEqual(names(planCve5(listed, { baseline: B('2024-10-21').name, delta: D('2024-10-21', '0500').name })), [
    '2024-10-24_all_CVEs_at_midnight.zip.zip',
    '2024-10-24_delta_CVEs_at_0200Z.zip',
  ]);
  assert.throws(() => planCve5(listed, { baseline: 'whatever.zip', delta: null }), /no cvelistV5 asset/);
});

test('detect: cvelistV5 archives by their first entry (baseline, its inner zip, delta); other zips are not feeds', () => {
  const head = (b: Buffer) => b.toString('utf8');
  const rec = JSON.stringify({ dataType: 'CVE_RECORD', cveMetadata: { cveId: 'CVE-2024-32931' } });
  const inner = zipBuffer([{ name: 'cves/2024/32xxx/CVE-2024-32931.json', data: rec }]);
  assert.equal(detectFromHead(head(zipBuffer([{ name: 'cves.zip', data: inner, method: 'store' }]))), 'cve5-zip');
  assert.equal(detectFromHead(head(inner)), 'cve5-zip');
  assert.equal(detectFromHead(head(zipBuffer([{ name: 'deltaCves/CVE-2024-32931.json', data: rec }]))), 'cve5-zip');
  assert.equal(detectFromHead(head(zipBuffer([{ name: 'cwec_v4.15.xml', data: '<Weakness_Catalog/>' }]))), null);
});
