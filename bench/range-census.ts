// The range census: over every affected statement of the corpus (CVE Record 5 `affected[].versions[]`, NVD
// configurations, CISA CSAF product trees), how many read as a machine range (docs/correlation.md §3), by source and
// by vendor, and the 50 most common spellings that still do not.
// A statement "carries a version" when it names one (an exact version, a bound, a change or a text); one that names
// none (every version) is counted apart. It "parses" when it has no text left and every version it states can be
// ordered by the scheme its vendor and product use (domain/version-schemes.ts `readable`). Git commit ranges
// (CVE 5 `versionType: "git"`) are counted apart too: they are ordered against nothing but themselves.
// Usage: npx tsx bench/range-census.ts [--json] [cve5.jsonl.gz] [csaf.jsonl.gz] [nvd-page.json]
import { readCve5 } from '../src/ingest/cve5.ts';
import { readCsaf } from '../src/ingest/csaf.ts';
import { readNvd } from '../src/ingest/nvd.ts';
import { canonicalRange } from '../src/domain/range-rows.ts';
import { writeFileSync } from 'node:fs';
import { prefixOnly, rangeReadable } from '../src/domain/version-schemes.ts';
import { vendorSlug } from '../src/domain/product-match.ts';
import { describe } from '../src/domain/correlate.ts';
import type { AffectedRange, RangeSource } from '../src/domain/ranges.ts';
import type { IngestItem } from '../src/ingest/types.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const asJson = process.argv.includes('--json');
const write = process.argv.includes('--write');
const data = '../shared/data';
const files = {
  cve5: args[0] ?? `${data}/cve5/vulnrichment-cve5.jsonl.gz`,
  csaf: args[1] ?? `${data}/csaf-ics/cisa-csaf-all.jsonl.gz`,
  nvd: args[2] ?? `${data}/nvd/nvd-api-2.0-page.assembled.json`,
};

interface Tally {
  statements: number;
  everyVersion: number;
  git: number;
  withVersion: number;
  parsed: number;
  prefix: number;
  condition: number;
}
const tally = (): Tally => ({
  statements: 0,
  everyVersion: 0,
  git: 0,
  withVersion: 0,
  parsed: 0,
  prefix: 0,
  condition: 0,
});
const bySource = new Map<RangeSource, Tally>();
const byVendor = new Map<string, Tally>();
const unparsed = new Map<string, { count: number; source: RangeSource; vendor: string; vendors: Set<string> }>();

function count(r0: AffectedRange): void {
  const r = canonicalRange(r0);
  const s = bySource.get(r.source) ?? tally();
  bySource.set(r.source, s);
  const vkey = `${r.source}\u0000${vendorSlug(r.vendor) || '(none)'}`;
  const v = byVendor.get(vkey) ?? tally();
  byVendor.set(vkey, v);
  for (const t of [s, v]) t.statements++;
  if (!r.version && !r.start && !r.end && !r.text && r.changes.length === 0) {
    s.everyVersion++;
    v.everyVersion++;
    return;
  }
  if (r.versionType && /^git$/i.test(r.versionType)) {
    s.git++;
    v.git++;
    return;
  }
  s.withVersion++;
  v.withVersion++;
  if (rangeReadable(r)) {
    const prefix = prefixOnly(r) ? 1 : 0;
    const condition = r.condition ? 1 : 0;
    for (const t of [s, v]) {
      t.parsed++;
      t.prefix += prefix;
      t.condition += condition;
    }
    return;
  }
  const spelling = describe(r);
  const key = `${r.source}\u0000${spelling}`;
  const u = unparsed.get(key) ?? { count: 0, source: r.source, vendor: r.vendor, vendors: new Set<string>() };
  u.count++;
  u.vendors.add(vendorSlug(r.vendor) || '(none)');
  unparsed.set(key, u);
}

async function drain(items: AsyncIterable<IngestItem>): Promise<void> {
  for await (const item of items) if (item.kind === 'cve') for (const r of item.record.ranges ?? []) count(r);
}

const t0 = performance.now();
await drain(readCve5(files.cve5, 'jsonl'));
await drain(readCsaf(files.csaf, 'jsonl'));
await drain(readNvd(files.nvd));
const ms = performance.now() - t0;

const pct = (t: Tally) => (t.withVersion ? (100 * t.parsed) / t.withVersion : 100);
const sources = [...bySource].map(([source, t]) => ({ source, ...t, parse_rate: Number(pct(t).toFixed(2)) }));
const vendors = [...byVendor]
  .map(([k, t]) => ({
    source: k.split('\u0000')[0],
    vendor: k.split('\u0000')[1],
    ...t,
    parse_rate: Number(pct(t).toFixed(2)),
  }))
  .sort((a, b) => b.withVersion - a.withVersion);
// A spelling several vendors write is shown with how many (the first vendor alone would name it for all).
const top = [...unparsed]
  .map(([k, u]) => ({
    spelling: k.split('\u0000')[1],
    count: u.count,
    source: u.source,
    vendor: u.vendors.size > 1 ? `${u.vendors.size} vendors` : u.vendor,
  }))
  .sort((a, b) => b.count - a.count)
  .slice(0, 50);
const num = (n: number) => n.toLocaleString('en-US');
if (asJson) {
  console.log(JSON.stringify({ sources, vendors, top, ms: Math.round(ms) }, null, 1));
} else {
  console.log(`range census (${(ms / 1000).toFixed(1)} s)`);
  console.log(
    'source  statements  every-version  git  with-version  parsed  rate  (of the parsed: prefix-only, under a condition)',
  );
  for (const s of sources)
    console.log(
      `${s.source.padEnd(6)} ${String(s.statements).padStart(11)} ${String(s.everyVersion).padStart(14)} ${String(s.git).padStart(4)} ${String(s.withVersion).padStart(13)} ${String(s.parsed).padStart(7)}  ${s.parse_rate.toFixed(2)} %  (${s.prefix}, ${s.condition})`,
    );
  console.log('\nvendors with the most statements carrying a version (source, vendor, with-version, parsed, rate):');
  for (const v of vendors.slice(0, 40))
    console.log(`  ${v.source} ${v.vendor}: ${v.withVersion} ${v.parsed} ${v.parse_rate.toFixed(2)} %`);
  console.log('\nthe 50 most common spellings that do not parse (count, source, vendor, spelling):');
  for (const u of top)
    console.log(`  ${String(u.count).padStart(5)}  ${u.source}  ${u.vendor}  ${JSON.stringify(u.spelling)}`);
}
if (write) {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
  const lines = [
    '# Range census: what the readers make of every affected statement',
    '',
    'Written by `npx tsx bench/range-census.ts --write` over the 44,130 CVE Record 5 records, the CISA CSAF advisories and',
    'the NVD records of `../shared/data` (docs/benchmarks.md "Asset correlation"); what counts as parsed: docs/correlation.md',
    '§3 "The range census". Regenerate it after a reader or a scheme changes.',
    '',
    '| Source | Statements | Every version | Git commits | Carrying a version | Parsed | Rate | Of the parsed: prefix only | Of the parsed: under a condition |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...sources.map(
      (s) =>
        `| ${s.source} | ${num(s.statements)} | ${num(s.everyVersion)} | ${num(s.git)} | ${num(s.withVersion)} | ${num(s.parsed)} | ${s.parse_rate.toFixed(2)} % | ${num(s.prefix)} | ${num(s.condition)} |`,
    ),
    '',
    '## The 50 most common spellings that do not parse',
    '',
    '| Count | Source | Vendor | Spelling |',
    '|---:|---|---|---|',
    ...top.map(
      (u) =>
        `| ${u.count} | ${u.source} | ${cell(u.vendor) || '(none)'} | \`${cell(u.spelling).replace(/`/g, "'")}\` |`,
    ),
    '',
  ];
  writeFileSync(new URL('../docs/range-census.md', import.meta.url), lines.join('\n'));
}
