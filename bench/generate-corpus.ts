// Writes a synthetic corpus of 367,000 CVE records in the NVD CVE API 2.0 format (pages of 2,000 records, the
// API's page size), for the load benchmarks. Every field distribution is drawn from the real files in
// shared/data (nothing about the shape is invented):
//  - ids: every CVE id of the real EPSS file (360k) plus the KEV ids, topped up with ids of the busiest years;
//    published dates fall in each id's year;
//  - CVSS: the metric-version mix of the 21 real NVD records (v3.1 only, v4.0 only, v2+v3.1, v3.1+v4.0), with
//    v3 vectors and scores drawn from the CISA CSAF advisories and v2/v4 metrics from the NVD records;
//  - CWE, vendors, products and description text: from the CSAF advisories and the KEV catalog (a CVE that is
//    in CSAF or KEV gets its own real data); KEV CVEs carry their real cisaExploitAdd fields;
//  - references: tag sets and hosts drawn from the NVD records' references.
// Usage: npx tsx bench/generate-corpus.ts [outDir=bench/out/corpus] [count=367000] [seed=1]
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { CVE_ID_BODY, isCveId } from '../src/domain/cve-id.ts';

const DATA = process.env.VULNINTEL_SHARED_DATA ?? '/work/shared/data';
const outDir = path.resolve(process.argv[2] ?? 'bench/out/corpus');
const COUNT = Number(process.argv[3] ?? 367_000);
const PAGE = 2000;
let seed = Number(process.argv[4] ?? 1) >>> 0;

function rnd(): number {
  // mulberry32: deterministic, so two runs write the same corpus.
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

// ---- pools from the real files ----
interface Cvss3 {
  version: string;
  vectorString: string;
  baseScore: number;
  baseSeverity: string;
}
interface PoolEntry {
  vendor: string;
  products: string[];
  cwe: string | null;
  cvss: Cvss3 | null;
  text: string;
}

const byCve = new Map<string, PoolEntry>();
const pool: PoolEntry[] = [];
const cvssPool: Cvss3[] = [];
const cwePool: string[] = [];

function severityOf(score: number): string {
  return score >= 9 ? 'CRITICAL' : score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : score > 0 ? 'LOW' : 'NONE';
}

const csafLines = gunzipSync(readFileSync(path.join(DATA, 'csaf-ics/cisa-csaf-all.jsonl.gz')))
  .toString('utf8')
  .split('\n');
for (const line of csafLines) {
  if (!line.trim()) continue;
  const d = JSON.parse(line);
  const vb = d.product_tree?.branches?.[0];
  const vendor: string | undefined = vb?.category === 'vendor' ? vb.name : undefined;
  if (!vendor) continue;
  const products = (vb.branches ?? [])
    .filter((b: { category: string }) => b.category === 'product_name')
    .map((b: { name: string }) => b.name)
    .slice(0, 4);
  for (const v of d.vulnerabilities ?? []) {
    const s = (v.scores ?? []).find((x: { cvss_v3?: unknown }) => x.cvss_v3)?.cvss_v3;
    const cvss = s
      ? {
          version: String(s.version ?? '3.1'),
          vectorString: String(s.vectorString),
          baseScore: Number(s.baseScore),
          baseSeverity: severityOf(Number(s.baseScore)),
        }
      : null;
    const text = (v.notes ?? []).find((n: { category: string }) => n.category === 'summary')?.text ?? v.title ?? '';
    const e: PoolEntry = {
      vendor,
      products: products.length ? products : [vendor],
      cwe: v.cwe?.id ?? null,
      cvss,
      text: String(text)
        .replace(new RegExp(`${CVE_ID_BODY} has been assigned.*$`, 's'), '')
        .trim(),
    };
    if (!e.text) continue;
    pool.push(e);
    if (cvss && /^CVSS:3\.[01]\//.test(cvss.vectorString)) cvssPool.push(cvss);
    if (e.cwe) cwePool.push(e.cwe);
    if (v.cve) byCve.set(v.cve, e);
  }
}

const kev = JSON.parse(readFileSync(path.join(DATA, 'kev/known_exploited_vulnerabilities.json'), 'utf8'))
  .vulnerabilities as {
  cveID: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  dateAdded: string;
  shortDescription: string;
  requiredAction: string;
  dueDate: string;
  cwes?: string[];
}[];
const kevById = new Map(kev.map((k) => [k.cveID, k]));
for (const k of kev) {
  const e: PoolEntry = {
    vendor: k.vendorProject,
    products: [k.product],
    cwe: k.cwes?.[0] ?? null,
    cvss: null,
    text: k.shortDescription,
  };
  pool.push(e);
  if (e.cwe) cwePool.push(e.cwe);
  if (!byCve.has(k.cveID)) byCve.set(k.cveID, e);
}

// Metric-version mix and v2/v4 metrics, reference shapes: the real NVD records.
const nvdRecords = readdirSync(path.join(DATA, 'nvd/records')).map((f) =>
  JSON.parse(readFileSync(path.join(DATA, 'nvd/records', f), 'utf8')),
);
const versionMix = nvdRecords.map((r) =>
  Object.keys(r.metrics ?? {})
    .filter((k) => k.startsWith('cvssMetric'))
    .sort(),
);
const v2Pool = nvdRecords.flatMap((r) => r.metrics?.cvssMetricV2 ?? []);
const v4Pool = nvdRecords.flatMap((r) => r.metrics?.cvssMetricV40 ?? []);
const refShapes = nvdRecords.flatMap((r) =>
  (r.references ?? []).map((x: { url: string; source: string; tags?: string[] }) => ({
    host: new URL(x.url).host,
    source: x.source,
    tags: x.tags,
  })),
);
const refCounts = nvdRecords.map((r) => (r.references ?? []).length);

// ---- ids ----
const ids: string[] = [];
const seen = new Set<string>();
const epssRaw = gunzipSync(readFileSync(path.join(DATA, 'epss/emba-first-epss-api-2026-08-16.ssv.gz'))).toString(
  'utf8',
);
for (const line of epssRaw.split('\n')) {
  const id = line.slice(0, line.indexOf(';'));
  if (isCveId(id) && !seen.has(id)) {
    seen.add(id);
    ids.push(id);
  }
}
for (const k of kev)
  if (!seen.has(k.cveID)) {
    seen.add(k.cveID);
    ids.push(k.cveID);
  }
let extra = 900000;
while (ids.length < COUNT) {
  const id = `CVE-${pick(['2024', '2025', '2026'])}-${extra++}`;
  if (!seen.has(id)) {
    seen.add(id);
    ids.push(id);
  }
}
ids.length = COUNT;

function cvssV3Metric(c: Cvss3) {
  const parts = Object.fromEntries(
    c.vectorString
      .split('/')
      .slice(1)
      .map((p) => p.split(':')),
  );
  const m = (k: string, map: Record<string, string>) => map[parts[k]] ?? null;
  const imp = { N: 'NONE', L: 'LOW', H: 'HIGH' };
  return {
    source: 'nvd@nist.gov',
    type: 'Primary',
    cvssData: {
      version: c.vectorString.startsWith('CVSS:3.0') ? '3.0' : '3.1',
      vectorString: c.vectorString,
      baseScore: c.baseScore,
      baseSeverity: c.baseSeverity,
      attackVector: m('AV', { N: 'NETWORK', A: 'ADJACENT_NETWORK', L: 'LOCAL', P: 'PHYSICAL' }),
      attackComplexity: m('AC', { L: 'LOW', H: 'HIGH' }),
      privilegesRequired: m('PR', imp),
      userInteraction: m('UI', { N: 'NONE', R: 'REQUIRED' }),
      scope: m('S', { U: 'UNCHANGED', C: 'CHANGED' }),
      confidentialityImpact: m('C', imp),
      integrityImpact: m('I', imp),
      availabilityImpact: m('A', imp),
    },
    exploitabilityScore: 3.9,
    impactScore: 5.9,
  };
}

function iso(d: Date): string {
  return d.toISOString().slice(0, 23);
}

function record(id: string) {
  const year = Number(id.split('-')[1]);
  const start = Date.UTC(Math.max(year, 1999), 0, 1);
  const end = Math.min(Date.UTC(year + 1, 0, 1), Date.UTC(2026, 7, 16));
  const published = new Date(start + Math.floor(rnd() * Math.max(1, end - start)));
  const lastModified = new Date(
    Math.min(Date.UTC(2026, 7, 16), published.getTime() + Math.floor(rnd() * 400 * 86400000)),
  );
  const e = byCve.get(id) ?? pick(pool);
  const cvss3 = e.cvss ?? pick(cvssPool);
  const metrics: Record<string, unknown[]> = {};
  for (const k of pick(versionMix)) {
    if (k === 'cvssMetricV31' || k === 'cvssMetricV30') metrics[k] = [cvssV3Metric(cvss3)];
    else if (k === 'cvssMetricV2') metrics[k] = [pick(v2Pool)];
    else if (k === 'cvssMetricV40') metrics[k] = [pick(v4Pool)];
  }
  const vSlug = slug(e.vendor);
  const products = e.products.map(slug).filter(Boolean);
  const nRefs = Math.max(1, pick(refCounts) > 6 ? 1 + Math.floor(rnd() * 6) : pick(refCounts));
  const refs = Array.from({ length: nRefs }, (_, i) => {
    const s = pick(refShapes);
    return {
      url: `https://${s.host}/advisories/${id.toLowerCase()}${i ? `-${i}` : ''}`,
      source: s.source,
      ...(s.tags?.length ? { tags: s.tags } : {}),
    };
  });
  const k = kevById.get(id);
  const cwe = e.cwe ?? pick(cwePool);
  return {
    cve: {
      id,
      sourceIdentifier: 'cna@example.org',
      published: iso(published),
      lastModified: iso(lastModified),
      vulnStatus: pick(['Analyzed', 'Analyzed', 'Modified', 'Awaiting Analysis', 'Received']),
      cveTags: [],
      descriptions: [{ lang: 'en', value: e.text }],
      metrics,
      ...(k
        ? {
            cisaExploitAdd: k.dateAdded,
            cisaActionDue: k.dueDate,
            cisaRequiredAction: k.requiredAction,
            cisaVulnerabilityName: k.vulnerabilityName,
          }
        : {}),
      weaknesses: [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: cwe }] }],
      configurations: [
        {
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: products
                .slice(0, 3)
                .map((p, i) => ({
                  vulnerable: true,
                  criteria: `cpe:2.3:a:${vSlug}:${p}:*:*:*:*:*:*:*:*`,
                  versionEndExcluding: `${1 + Math.floor(rnd() * 9)}.${Math.floor(rnd() * 20)}`,
                  matchCriteriaId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
                })),
            },
          ],
        },
      ],
      references: refs,
    },
  };
}

mkdirSync(outDir, { recursive: true });
const stamp = '2026-08-16T00:00:00.000';
for (let p = 0; p * PAGE < ids.length; p++) {
  const slice = ids.slice(p * PAGE, (p + 1) * PAGE);
  const page = {
    resultsPerPage: slice.length,
    startIndex: p * PAGE,
    totalResults: ids.length,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: stamp,
    vulnerabilities: slice.map(record),
  };
  writeFileSync(path.join(outDir, `nvd-page-${String(p + 1).padStart(4, '0')}.json`), JSON.stringify(page));
}
process.stdout.write(`wrote ${ids.length} records in ${Math.ceil(ids.length / PAGE)} pages to ${outDir}\n`);
