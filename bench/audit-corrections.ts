// The conformance check of the corrections to the CVE records (docs/enrichment.md), counted in memory over feed files (no
// database): every CVE source record is read, merged and enriched exactly as the import does (readers →
// mergeSources → buildCveDocument), then four figures are counted on the documents. Run it against another checkout
// (e.g. one without a correction) with AUDIT_ROOT=/path/to/checkout; the counting rules are this file's.
// Usage: node --import tsx bench/audit-corrections.ts [paths…=snapshot/]
import path from 'node:path';
import { canonicalVendor } from '../src/domain/vendors.ts';
import { hostOf, registrableDomain } from '../src/domain/urls.ts';

const root = path.resolve(process.env.AUDIT_ROOT ?? path.join(import.meta.dirname, '..'));
const paths = process.argv.slice(2).length ? process.argv.slice(2) : [path.join(root, 'snapshot')];

const { collectInputs } = (await import(path.join(root, 'src/ingest/inputs.ts'))) as any;
const { mergeSources } = (await import(path.join(root, 'src/domain/merge.ts'))) as any;
const { buildCveDocument } = (await import(path.join(root, 'src/domain/enrich.ts'))) as any;
const { buildCapecIndex } = (await import(path.join(root, 'src/domain/capec.ts'))) as any;

const byCve = new Map<string, any[]>();
const t0 = Date.now();
const { inputs } = await collectInputs(paths);
for (const input of inputs) {
  for await (const item of input.items()) {
    if (item.kind !== 'cve') continue;
    const list = byCve.get(item.record.cve_id);
    if (list) list.push(item.record);
    else byCve.set(item.record.cve_id, [item.record]);
  }
}
const catalogs = { cwe: new Map(), capec: buildCapecIndex([], null) };
const now = new Date().toISOString();
const slug = (v: string) => canonicalVendor(v)?.slug ?? null;
const figures = {
  cves: 0,
  downstream_fix: 0,
  microsoft_page_other_vendor: 0,
  severity_disagrees: 0,
  severity_disagrees_msrc: 0,
  ics_cves: 0,
  ics_vendor_advisory_links: 0,
  ics_cves_with_vendor_advisory: 0,
  ssvc_poc_available: 0,
  exploit_maturity_poc: 0,
  actively_exploited: 0,
};
const examples: Record<string, string[]> = {
  downstream_fix: [],
  microsoft_page_other_vendor: [],
  severity_disagrees: [],
};
const note = (k: string, id: string) => {
  if (examples[k].length < 5) examples[k].push(id);
};
for (const [cve, records] of byCve) {
  const merged = mergeSources(cve, records);
  if (!merged.description) continue; // the corpus is the CVEs some source describes
  const { doc } = buildCveDocument(merged, catalogs, now);
  figures.cves++;
  const catalog = doc.affected.primary_vendor ? slug(doc.affected.primary_vendor) : null;
  // 1. The patch block's fix or remediation text comes from an advisory that lists none of the catalog vendor's products.
  const foreign = merged.advisories.filter((a: any) => {
    const vendors = [
      ...new Set(
        records
          .filter((r: any) => r.advisory?.advisory_id === a.advisory_id)
          .flatMap((r: any) => r.affected.map((x: any) => slug(x.vendor))),
      ),
    ];
    return catalog !== null && vendors.length > 0 && !vendors.includes(catalog);
  });
  const own = merged.advisories.filter((a: any) => !foreign.includes(a));
  const p = doc.patch;
  const fromForeign =
    (p.fixed_in &&
      foreign.some((a: any) =>
        a.fixes.some((f: any) => f.product === p.fixed_in.product && f.version === p.fixed_in.version),
      ) &&
      !own.some((a: any) =>
        a.fixes.some((f: any) => f.product === p.fixed_in.product && f.version === p.fixed_in.version),
      )) ||
    (p.patch_notes &&
      foreign.some((a: any) =>
        a.vendor_fixes.some((f: any) => f.details.replace(/\s+/g, ' ').trim().slice(0, 500) === p.patch_notes),
      ) &&
      !own.some((a: any) =>
        a.vendor_fixes.some((f: any) => f.details.replace(/\s+/g, ' ').trim().slice(0, 500) === p.patch_notes),
      ));
  if (fromForeign) {
    figures.downstream_fix++;
    note('downstream_fix', cve);
  }
  // 2. A Microsoft page among the vendor advisories of a CVE whose catalog vendor is not Microsoft.
  const msPage = doc.references.vendor_advisories.some((r: any) => {
    const h = hostOf(r.url);
    return h !== null && registrableDomain(h) === 'microsoft.com';
  });
  if (msPage && catalog !== 'microsoft') {
    figures.microsoft_page_other_vendor++;
    note('microsoft_page_other_vendor', cve);
  }
  // 3. The card severity (list) and the detail's scoring.cvss.severity differ.
  if (doc.severity !== doc.scoring.cvss.severity) {
    figures.severity_disagrees++;
    if (doc.sources.includes('msrc')) figures.severity_disagrees_msrc++;
    note('severity_disagrees', cve);
  }
  // 4. Vendor-advisory links of CVEs that a CISA ICS advisory names.
  if (doc.references.cisa_ics_advisories.length) {
    figures.ics_cves++;
    figures.ics_vendor_advisory_links += doc.references.vendor_advisories.length;
    if (doc.references.vendor_advisories.length) figures.ics_cves_with_vendor_advisory++;
  }
  if (doc.exploitation.poc_available) figures.ssvc_poc_available++;
  if (doc.exploitation.exploit_maturity === 'POC') figures.exploit_maturity_poc++;
  if (doc.exploitation.actively_exploited) figures.actively_exploited++;
}
console.log(JSON.stringify({ root, paths, seconds: Math.round((Date.now() - t0) / 1000), figures, examples }, null, 2));
