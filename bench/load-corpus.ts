// Loads the synthetic NVD corpus (bench/generate-corpus.ts) into a PostgreSQL database's read model, with a
// minimal enrichment (EPSS from the real file, KEV from the records' cisaExploitAdd, vendors/products from the
// CPE criteria, protocols from the description, patch status from reference tags, a simple BCS). For the API
// benchmarks only: the real enrichment is `vulnintel import` (ingest). Migrates the database first.
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/vulnintel_bench npx tsx bench/load-corpus.ts [dir]
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import pg from 'pg';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { upsertCves } from '../src/store/cves.ts';
import { ICS_PROTOCOLS, type CveDocument, type IcsProtocol, type Severity } from '../src/domain/cve-document.ts';

const DATA = process.env.VULNINTEL_SHARED_DATA ?? '/work/shared/data';
const dir = path.resolve(process.argv[2] ?? 'bench/out/corpus');
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vulnintel_bench';

{
  const u = new URL(url);
  const name = u.pathname.slice(1);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await c.query(`CREATE DATABASE ${name}`);
  await c.end();
}

const store = openStore(url, { max: 4 });
await migrate(store.pool);

const epss = new Map<string, [number, number]>();
for (const line of gunzipSync(readFileSync(path.join(DATA, 'epss/emba-first-epss-api-2026-08-16.ssv.gz')))
  .toString('utf8')
  .split('\n')) {
  const [id, s, p] = line.split(';');
  if (id && s) epss.set(id, [Number(s), Number(p)]);
}
const icsVendors = new Set<string>();
for (const line of gunzipSync(readFileSync(path.join(DATA, 'csaf-ics/cisa-csaf-all.jsonl.gz')))
  .toString('utf8')
  .split('\n')) {
  if (!line.trim()) continue;
  const v = JSON.parse(line).product_tree?.branches?.[0];
  if (v?.category === 'vendor')
    icsVendors.add(
      v.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    );
}

const PROTO_RE: [IcsProtocol, RegExp][] = [
  ['modbus', /modbus/i],
  ['dnp3', /dnp3/i],
  ['opc-ua', /opc[ -]?ua/i],
  ['iec-61850', /61850/],
  ['profinet', /profinet/i],
  ['ethernet-ip', /ethernet\/ip/i],
  ['bacnet', /bacnet/i],
  ['ssh', /\bssh\b/i],
  ['http', /\bhttps?\b/i],
  ['ftp', /\bftp\b/i],
];

const sevOf = (s: number | null): Severity | null =>
  s === null ? null : s >= 9 ? 'CRITICAL' : s >= 7 ? 'HIGH' : s >= 4 ? 'MEDIUM' : 'LOW';
const title = (s: string) =>
  s
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
const vendorNames = new Map<string, string>();

function enrich(c: any): CveDocument {
  const m = c.metrics ?? {};
  const v3 = (m.cvssMetricV31 ?? m.cvssMetricV30)?.[0]?.cvssData;
  const v4 = m.cvssMetricV40?.[0]?.cvssData;
  const v2 = m.cvssMetricV2?.[0]?.cvssData;
  const cv = v3 ?? v4 ?? v2 ?? null;
  const score: number | null = cv?.baseScore ?? null;
  const desc: string = c.descriptions?.find((d: { lang: string }) => d.lang === 'en')?.value ?? '';
  const cpes: string[] = (c.configurations ?? []).flatMap((g: { nodes: { cpeMatch: { criteria: string }[] }[] }) =>
    g.nodes.flatMap((n) => n.cpeMatch.map((x) => x.criteria)),
  );
  const vendorSlugs = [...new Set(cpes.map((x) => x.split(':')[3].replace(/_/g, '-')))];
  for (const s of vendorSlugs) if (!vendorNames.has(s)) vendorNames.set(s, title(s.replace(/-/g, '_')));
  const products = [...new Set(cpes.map((x) => title(x.split(':')[4])))];
  const kev = Boolean(c.cisaExploitAdd);
  const tags: string[] = (c.references ?? []).flatMap((r: { tags?: string[] }) => r.tags ?? []);
  const exploit = tags.includes('Exploit');
  const patched = tags.includes('Patch');
  const ics = vendorSlugs.some((s) => icsVendors.has(s.replace(/-/g, '_'))) ? 0.8 : 0.2;
  const [es, ep] = epss.get(c.id) ?? [null, null];
  const bcs = Math.max(
    0,
    Math.min(
      10,
      Math.round(
        ((score ?? 0) +
          (kev ? 2 : 0) +
          (exploit ? 1 : 0) +
          (ics >= 0.7 ? 0.5 : 0) +
          ((ep ?? 0) >= 0.9 ? 0.5 : 0) -
          (patched && !kev ? 0.5 : 0)) *
          10,
      ) / 10,
    ),
  );
  const sev = sevOf(score);
  const protocols = PROTO_RE.filter(([, re]) => re.test(desc))
    .map(([p]) => p)
    .filter((p) => (ICS_PROTOCOLS as readonly string[]).includes(p));
  const cwes = (c.weaknesses ?? [])
    .flatMap((w: { description: { value: string }[] }) => w.description.map((d) => d.value))
    .filter((x: string) => /^CWE-\d+$/.test(x))
    .map((x: string) => Number(x.slice(4)));
  const refs = (c.references ?? []).map((r: { url: string; tags?: string[]; source: string }) => ({
    url: r.url,
    tags: r.tags ?? [],
    provided_by: r.source,
  }));
  const kevAt = kev ? `${c.cisaExploitAdd}T00:00:00Z` : null;
  return {
    cve_id: c.id,
    bsid: `BS-${c.id.split('-')[1]}-${c.id.split('-')[2].padStart(6, '0')}-${(sev ?? 'LOW')[0]}`,
    title:
      `${vendorNames.get(vendorSlugs[0]) ?? 'Unknown'} ${products[0] ?? ''}: ${desc.split(/(?<=\.)\s/)[0].slice(0, 120)}`.trim(),
    description: desc,
    severity: sev,
    scoring: {
      cvss: {
        score,
        vector: cv?.vectorString ?? null,
        version: cv?.version ?? null,
        severity: sev,
        attack_vector: cv?.attackVector ?? null,
        attack_complexity: cv?.attackComplexity ?? null,
        privileges_required: cv?.privilegesRequired ?? null,
        user_interaction: cv?.userInteraction ?? null,
        scope: cv?.scope ?? null,
        confidentiality_impact: cv?.confidentialityImpact ?? null,
        integrity_impact: cv?.integrityImpact ?? null,
        availability_impact: cv?.availabilityImpact ?? null,
      },
      epss: {
        score: es,
        percentile: ep,
        interpretation:
          ep === null
            ? null
            : ep >= 0.9
              ? 'Top 10% most likely to be exploited'
              : ep >= 0.5
                ? 'Above median exploitation probability'
                : 'Below median exploitation probability',
      },
      bcs: {
        score: bcs,
        tier: sevOf(bcs) ?? 'LOW',
        factors: {
          kev_flagged: kev,
          poc_available: false,
          has_public_exploit: exploit,
          patch_available: patched,
          ics_relevance: ics,
        },
      },
    },
    exploitation: {
      kev_flagged: kev,
      kev_added_at: kevAt,
      has_public_exploit: exploit,
      poc_available: false,
      exploit_maturity: kev ? 'WEAPONIZED' : exploit ? 'FUNCTIONAL' : 'NONE',
      actively_exploited: kev,
    },
    affected: {
      vendors: vendorSlugs.map((s) => vendorNames.get(s)!),
      vendor_slugs: vendorSlugs,
      products,
      primary_vendor: vendorNames.get(vendorSlugs[0]) ?? null,
      primary_product: products[0] ?? null,
      vendor_count: vendorSlugs.length,
      device_types: [],
      protocols,
      ics_relevance_score: ics,
      ics_relevant: ics >= 0.7,
    },
    patch: {
      status: patched ? 'patched' : 'unknown',
      patch_available: patched,
      patch_version: null,
      patch_url: null,
      patch_notes: null,
      note: null,
      fixed_in: null,
    },
    classification: {
      cwes: cwes.map((id: number) => ({ id, url: `https://cwe.mitre.org/data/definitions/${id}.html` })),
      attack_vector: cv?.attackVector ?? null,
      attack_complexity: cv?.attackComplexity ?? null,
      privileges_required: cv?.privilegesRequired ?? null,
      user_interaction: cv?.userInteraction ?? null,
      scope: cv?.scope ?? null,
      layer: ics >= 0.7 ? 'OT' : 'OS',
      category: 'unclassified',
    },
    capec: [],
    sage: {
      model: 'none',
      tier: 'full',
      executive_summary: null,
      ics_context: null,
      remediation_guidance: null,
      confidence_score: null,
      confidence_tier: null,
      status: 'pending',
      generated_at: null,
    },
    temporal: {
      published_at: `${c.published}Z`,
      modified_at: `${c.lastModified}Z`,
      enriched_at: new Date().toISOString(),
      kev_added_at: kevAt,
    },
    references: {
      nvd_url: `https://nvd.nist.gov/vuln/detail/${c.id}`,
      cve_org_url: `https://www.cve.org/CVERecord?id=${c.id}`,
      vendor_advisories: refs.filter((r: { tags: string[] }) => r.tags.includes('Vendor Advisory')),
      cisa_ics_advisories: [],
      other_references: refs.filter((r: { tags: string[] }) => !r.tags.includes('Vendor Advisory')).slice(0, 25),
      other_references_total: refs.filter((r: { tags: string[] }) => !r.tags.includes('Vendor Advisory')).length,
    },
    sources: ['nvd', ...(es !== null ? ['epss'] : []), ...(kev ? ['kev'] : [])],
  };
}

const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const t0 = Date.now();
let n = 0;
for (const f of files) {
  const page = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
  const docs: CveDocument[] = page.vulnerabilities.map((v: { cve: unknown }) => enrich(v.cve));
  const newVendors = [...new Set(docs.flatMap((d) => d.affected.vendor_slugs))].map((s) => ({
    slug: s,
    name: vendorNames.get(s)!,
    aliases: [],
  }));
  await store.db
    .insertInto('vendors')
    .values(newVendors)
    .onConflict((oc) => oc.column('slug').doNothing())
    .execute();
  for (let i = 0; i < docs.length; i += 500) n += await upsertCves(store.db, docs.slice(i, i + 500));
  process.stdout.write(`\r${f}: ${n} rows changed, ${Math.round((Date.now() - t0) / 1000)} s`);
}
await store.pool.query('VACUUM ANALYZE cves');
await store.pool.query('ANALYZE');
process.stdout.write(`\nloaded ${n} rows in ${Math.round((Date.now() - t0) / 1000)} s\n`);
await store.close();
