// Environment-asset matches of the alert run (spec §6 `entity_type: environment`; docs/alerts.md
// "Asset matches"). Pure: the run loads every active organization's stored environment assets once, indexes them
// here, and asks per chunk of changed CVEs which assets those CVEs hit.
//
// - v1 assets (stored by correlate-cves with environment_id): the CVE's stored ranges, looked up by the same keys
//   correlation uses (vendor slug + product key, every whole-word prefix for family matches; CPE tokens), confirmed
//   by matchRow and decided by verdict (domain/correlate.ts): affected and needs_review alert, not_affected does not.
// - v2 Windows hosts (stored by the v2 routes): evaluated by the Windows engine (domain/windows/evaluate.ts), the
//   same verdict as GET /api/v2/assets/results, against their build and installed KBs. `confirmed open` alerts as
//   affected, `needs review` as needs_review; a host whose build or KBs already carry the fix is not alerted.
//   Hosts with the same facts (a fleet on one patch level) are evaluated once per run, lazily, only when a chunk
//   holds a CVE of Microsoft's data.
import { matchRow, verdict, type CorrelationStatus, type RangeRow } from './correlate.ts';
import { familyKeys, familyLookup, productKey, vendorSlug, type ProductMatch } from './product-match.ts';
import { parseCpe } from './cpe-name.ts';
import { stemFreeKey, vendorStem } from './vendor-stem.ts';
import { hostFactsKey, type HostEvaluation } from './windows/evaluate.ts';
import { whyText } from './windows/wording.ts';
import type { WindowsHost } from './windows/host-record.ts';

export interface EnvAsset {
  org_id: number;
  environment: string;
  asset_id: string;
  vendor: string;
  product: string;
  version: string | null;
  cpe: string | null;
}

export interface EnvHost {
  org_id: number;
  environment: string;
  asset_id: string;
  host: WindowsHost;
}

/** One asset a changed CVE hits, as the alert names it. */
export interface AssetHit {
  org_id: number;
  cve_id: string;
  environment: string;
  asset_id: string;
  kind: 'asset' | 'windows_host';
  /** affected: certain; needs_review: the verdict could not be made with certainty (docs/correlation.md §5). */
  status: Exclude<CorrelationStatus, 'not_affected'>;
  /** What matched: "Siemens SIMATIC S7-1500 V2.9.1", or the Microsoft product name. */
  product: string;
  reason: string;
}

/** The assets of every organization that read the same nameplate: matched and decided once for all of them. */
interface Nameplate {
  vendor: string;
  product: string;
  version: string | null;
  cpe: string | null;
  assets: EnvAsset[];
}

export interface AssetIndex {
  /** Nameplates by `<vendor slug>\0<product key>` for their own key and every whole-word prefix of it. */
  byKey: Map<string, Nameplate[]>;
  /**
   * The same by organisation: `<vendor stem>\0<product key without the stem in front>` (vendorStem, stemFreeKey),
   * so a row under another spelling of the vendor's organisation ("Apache Software Foundation" / `apache`) finds it.
   */
  byOrg: Map<string, Nameplate[]>;
  /** Nameplates by `<cpe vendor>\0<cpe product>`. */
  byCpe: Map<string, Nameplate[]>;
  /**
   * Nameplates that name a product family (familyLookup) the corpus gives no product by `<vendor slug>\0<product
   * key>`: a row of one of the family's products (its key starts with the nameplate's and a space) finds them
   * (matchRow answers `member`).
   */
  byFamily: Map<string, Nameplate[]>;
  /** Windows hosts grouped by the facts the engine reads: each group is evaluated once, on first need. */
  hostProfiles: HostProfile[];
  assets: number;
  hosts: number;
}

/** Evaluates one host with the Windows engine (the run's EvaluationRun, services/alerts.ts). */
export type HostEvaluator = (host: WindowsHost) => HostEvaluation;

interface HostVerdict {
  status: Exclude<CorrelationStatus, 'not_affected'>;
  product: string;
  reason: string;
}

/** Hosts with the same engine facts, and (once evaluated) the CVEs open or in review on them. */
export interface HostProfile {
  sample: WindowsHost;
  hosts: EnvHost[];
  open?: Map<string, HostVerdict>;
}

/** The CVEs a host evaluation leaves open or in review, with the engine's own reason; cleared CVEs are left out. */
export function openVerdicts(e: HostEvaluation): Map<string, HostVerdict> {
  const out = new Map<string, HostVerdict>();
  for (const it of e.items) {
    if (it.status === 'cleared (patched)') continue;
    const review = it.status === 'needs review';
    const note = review ? (it.status === it.v.status ? it.v.note : (it.note ?? it.v.note)) : null;
    const why = whyText(it.v, e.os_build, it.p);
    out.set(it.cve_id, {
      status: review ? 'needs_review' : 'affected',
      product: it.productName,
      reason: review ? `Needs review on ${it.productName}: ${note ?? why}` : `Open on ${it.productName}: ${why}`,
    });
  }
  return out;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/**
 * The nameplates of `assets` that name a product family (familyLookup), as `<vendor slug>\0<product key>`: the
 * caller asks which of them the corpus names as a product (store/ranges.ts namedProducts) for buildAssetIndex.
 */
export function familyNames(assets: readonly EnvAsset[]): { slug: string; key: string }[] {
  const out = new Map<string, { slug: string; key: string }>();
  for (const a of assets) {
    const f = familyLookup(a.vendor, a.product);
    if (f) out.set(`${f.slug}\u0000${f.key}`, f);
  }
  return [...out.values()];
}

/**
 * The run's index of environment assets and hosts. `named`: the family names (familyNames) the corpus gives a
 * product; a nameplate so named is that product, and rows of the family's products do not find it (as
 * correlate-cves decides: namedBy).
 */
export function buildAssetIndex(
  assets: readonly EnvAsset[],
  hosts: readonly EnvHost[],
  named: ReadonlySet<string> = new Set(),
): AssetIndex {
  const ix: AssetIndex = {
    byKey: new Map(),
    byOrg: new Map(),
    byCpe: new Map(),
    byFamily: new Map(),
    // Stryker disable next-line ArrayDeclaration: hostProfiles is replaced by the profiles built below before anything reads it
    hostProfiles: [],
    assets: assets.length,
    hosts: hosts.length,
  };
  // Many organizations run the same equipment: one nameplate (vendor, product, version, CPE) is keyed, matched
  // and decided once, and its verdict applies to each asset that reads it.
  const plates = new Map<string, Nameplate>();
  for (const a of assets) {
    // Stryker disable next-line StringLiteral: a key of the in-memory index only: any constant for a missing version or CPE keeps equal nameplates equal
    const k = `${a.vendor}\u0000${a.product}\u0000${a.version ?? ''}\u0000${a.cpe ?? ''}`;
    const p = plates.get(k);
    if (p) p.assets.push(a);
    else plates.set(k, { vendor: a.vendor, product: a.product, version: a.version, cpe: a.cpe, assets: [a] });
  }
  for (const p of plates.values()) {
    const slug = vendorSlug(p.vendor);
    const key = productKey(p.product, p.vendor);
    if (slug && key) {
      for (const k of familyKeys(key)) push(ix.byKey, `${slug}\u0000${k}`, p);
      // And by organisation (vendorStem): rows of the same organisation's other vendor spellings find it too.
      const stem = vendorStem(slug);
      for (const k of familyKeys(stemFreeKey(key, stem))) push(ix.byOrg, `${stem}\u0000${k}`, p);
    }
    const c = p.cpe ? parseCpe(p.cpe) : null;
    if (c) push(ix.byCpe, `${c.vendor}\u0000${c.product}`, p);
    const family = familyLookup(p.vendor, p.product);
    const fk = family ? `${family.slug}\u0000${family.key}` : null;
    if (fk && !named.has(fk)) push(ix.byFamily, fk, p);
  }
  const profiles = new Map<string, HostProfile>();
  for (const h of hosts) {
    const k = hostFactsKey(h.host);
    const p = profiles.get(k);
    if (p) p.hosts.push(h);
    else profiles.set(k, { sample: h.host, hosts: [h] });
  }
  ix.hostProfiles = [...profiles.values()];
  return ix;
}

/**
 * The assets the given CVEs hit. `ranges`: the cve_ranges rows of those CVEs; `msrcCves`: those of them in
 * Microsoft's data, checked against every host profile with `evaluate` (called once per profile per index). Cost
 * follows the ranges and the nameplates under their keys, and the profiles, not organizations × assets.
 */
export function assetHits(
  ix: AssetIndex,
  ranges: readonly (RangeRow & { cve_id: string })[],
  msrcCves: readonly string[],
  evaluate?: HostEvaluator,
): AssetHit[] {
  const out: AssetHit[] = [];
  // Per (CVE, nameplate): the rows whose product matched it, then one verdict, as correlate-cves decides it.
  const matched = new Map<string, Map<Nameplate, { row: RangeRow; match: ProductMatch }[]>>();
  for (const row of ranges) {
    // The nameplates under the row's key, by vendor slug and by organisation; a row of a variant of a nameplate's
    // product ("… (6ES7511-1AK02-0AB0)") also under its base key (matchRow answers `variant`), and of a product of
    // the family a nameplate names under the prefixes of its key (`member`).
    const found = new Set<Nameplate>();
    const stem = vendorStem(row.vendor_slug);
    for (const key of row.base_key ? [row.product_key, row.base_key] : [row.product_key]) {
      for (const p of ix.byKey.get(`${row.vendor_slug}\u0000${key}`) ?? []) found.add(p);
      for (const p of ix.byOrg.get(`${stem}\u0000${stemFreeKey(key, stem)}`) ?? []) found.add(p);
    }
    // Stryker disable next-line ConditionalExpression: without a CPE vendor the CPE key names no asset: the lookup finds nothing either way
    if (row.cpe_vendor) for (const p of ix.byCpe.get(`${row.cpe_vendor}\u0000${row.cpe_product}`) ?? []) found.add(p);
    // Nameplates that name a family of the row's product: under each shorter whole-word prefix of its key.
    if (ix.byFamily.size)
      for (const f of familyKeys(row.product_key).slice(1))
        for (const p of ix.byFamily.get(`${row.vendor_slug}\u0000${f}`) ?? []) found.add(p);
    for (const p of found) {
      const m = matchRow(p, row);
      // Stryker disable next-line ConditionalExpression: a nameplate found through the row's own keys always matches the row (matchRow repeats that lookup)
      if (!m) continue;
      let per = matched.get(row.cve_id);
      if (!per) matched.set(row.cve_id, (per = new Map<Nameplate, { row: RangeRow; match: ProductMatch }[]>()));
      push(per, p, { row, match: m });
    }
  }
  for (const [cve_id, per] of matched) {
    for (const [p, rows] of per) {
      const v = verdict({ vendor: p.vendor, product: p.product, version: p.version, cpe: p.cpe }, rows);
      if (v.status === 'not_affected') continue;
      const product = [p.vendor, p.product, p.version].filter(Boolean).join(' ');
      for (const a of p.assets) {
        out.push({
          org_id: a.org_id,
          cve_id,
          environment: a.environment,
          asset_id: a.asset_id,
          kind: 'asset',
          status: v.status,
          product,
          reason: v.reason,
        });
      }
    }
  }
  if (!evaluate || !msrcCves.length) return out;
  const cves = new Set(msrcCves);
  for (const prof of ix.hostProfiles) {
    const open = (prof.open ??= openVerdicts(evaluate(prof.sample)));
    // Stryker disable next-line ConditionalExpression: with nothing open the loop below finds nothing; the check only saves the loop
    if (!open.size) continue;
    for (const cve_id of cves) {
      const v = open.get(cve_id);
      if (!v) continue;
      for (const host of prof.hosts) {
        out.push({
          org_id: host.org_id,
          cve_id,
          environment: host.environment,
          asset_id: host.asset_id,
          kind: 'windows_host',
          status: v.status,
          product: v.product,
          reason: v.reason,
        });
      }
    }
  }
  return out;
}
