// Environment-asset matches of the alert run (issue 13, spec §6 `entity_type: environment`; docs/alerts.md
// "Asset matches"). Pure: the run loads every active organization's stored environment assets once, indexes them
// here, and asks per chunk of changed CVEs which assets those CVEs hit.
//
// - v1 assets (stored by correlate-cves with environment_id): the CVE's stored ranges, looked up by the same keys
//   correlation uses (vendor slug + product key, every whole-word prefix for family matches; CPE tokens), confirmed
//   by matchRow and decided by verdict (domain/correlate.ts): affected and needs_review alert, not_affected does not.
// - v2 Windows hosts (stored by the v2 routes): the MSRC product ids matchHost maps the host to, against the product
//   ids the CVE's MSRC data lists. One mapped product: affected; several candidates (ambiguous build): needs_review.
import { matchRow, verdict, type CorrelationStatus, type RangeRow } from './correlate.ts';
import { familyKeys, parseCpe, productKey, vendorSlug, type ProductMatch } from './product-match.ts';
import { matchHost } from './windows/match.ts';
import type { WindowsHost } from './windows/validate.ts';

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
  /** Nameplates by `<cpe vendor>\0<cpe product>`. */
  byCpe: Map<string, Nameplate[]>;
  /** Windows hosts by MSRC product id, with the products they map to. */
  byProduct: Map<string, { host: EnvHost; names: Map<string, string> }[]>;
  assets: number;
  hosts: number;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

export function buildAssetIndex(assets: readonly EnvAsset[], hosts: readonly EnvHost[]): AssetIndex {
  const ix: AssetIndex = { byKey: new Map(), byCpe: new Map(), byProduct: new Map(), assets: assets.length, hosts: hosts.length };
  // Many organizations run the same equipment: one nameplate (vendor, product, version, CPE) is keyed, matched
  // and decided once, and its verdict applies to each asset that reads it.
  const plates = new Map<string, Nameplate>();
  for (const a of assets) {
    const k = `${a.vendor}\u0000${a.product}\u0000${a.version ?? ''}\u0000${a.cpe ?? ''}`;
    const p = plates.get(k);
    if (p) p.assets.push(a);
    else plates.set(k, { vendor: a.vendor, product: a.product, version: a.version, cpe: a.cpe, assets: [a] });
  }
  for (const p of plates.values()) {
    const slug = vendorSlug(p.vendor);
    const key = productKey(p.product, p.vendor);
    if (slug && key) for (const k of familyKeys(key)) push(ix.byKey, `${slug}\u0000${k}`, p);
    const c = p.cpe ? parseCpe(p.cpe) : null;
    if (c) push(ix.byCpe, `${c.vendor}\u0000${c.product}`, p);
  }
  const mapped = new Map<string, ReturnType<typeof matchHost>['products']>();
  for (const h of hosts) {
    // What matchHost reads of a host (domain/windows/match.ts): hosts alike in these map alike.
    const hk = JSON.stringify([h.host.os_product, h.host.edition_id, h.host.os_build, h.host.installation_type, h.host.architecture]);
    let products = mapped.get(hk);
    if (!products) mapped.set(hk, (products = matchHost(h.host).products));
    const names = new Map(products.map((p) => [p.id, p.name]));
    for (const p of products) push(ix.byProduct, p.id, { host: h, names });
  }
  return ix;
}

/**
 * The assets the given CVEs hit. `ranges`: the cve_ranges rows of those CVEs; `msrc`: their (cve_id, product_id)
 * pairs from the MSRC data. Cost follows the ranges and the nameplates under their keys, not organizations × assets.
 */
export function assetHits(ix: AssetIndex, ranges: readonly (RangeRow & { cve_id: string })[], msrc: readonly { cve_id: string; product_id: string }[]): AssetHit[] {
  const out: AssetHit[] = [];
  // Per (CVE, nameplate): the rows whose product matched it, then one verdict, as correlate-cves decides it.
  const matched = new Map<string, Map<Nameplate, { row: RangeRow; match: ProductMatch }[]>>();
  for (const row of ranges) {
    const found = new Set<Nameplate>(ix.byKey.get(`${row.vendor_slug}\u0000${row.product_key}`) ?? []);
    if (row.cpe_vendor) for (const p of ix.byCpe.get(`${row.cpe_vendor}\u0000${row.cpe_product}`) ?? []) found.add(p);
    for (const p of found) {
      const m = matchRow(p, row);
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
        out.push({ org_id: a.org_id, cve_id, environment: a.environment, asset_id: a.asset_id, kind: 'asset', status: v.status, product, reason: v.reason });
      }
    }
  }
  const seen = new Set<string>();
  for (const { cve_id, product_id } of msrc) {
    for (const { host, names } of ix.byProduct.get(product_id) ?? []) {
      const k = `${cve_id}\u0000${host.org_id}\u0000${host.environment}\u0000${host.asset_id}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const one = names.size === 1;
      out.push({
        org_id: host.org_id, cve_id, environment: host.environment, asset_id: host.asset_id, kind: 'windows_host',
        status: one ? 'affected' : 'needs_review', product: names.get(product_id)!,
        reason: one
          ? `Microsoft lists ${names.get(product_id)} for this CVE`
          : `Microsoft lists ${names.get(product_id)} for this CVE, one of the ${names.size} products the host's build may be`,
      });
    }
  }
  return out;
}
