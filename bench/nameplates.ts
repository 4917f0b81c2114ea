// 200 assets as nameplates give them, drawn from the stored ranges (bench/correlate.ts, bench/memory-run.ts): 100 ICS
// products from the CSAF ranges and 80 IT products from the NVD / CVE 5 ranges, vendor spelled with a legal suffix
// or in another case, the version at a stated bound, just inside, outside ("99.0"), in the product name, or unknown;
// 20 unknown products. Deterministic: the same corpus gives the same assets. `sampled`: from a repeatable 5 % sample
// of the range groups and their first range (seconds on the full corpus, where the full grouping takes minutes).
import { sql } from '../src/store/kysely.ts';
import type { Store } from '../src/store/db.ts';

interface Row {
  source: string;
  vendor: string;
  product: string;
  lo: string | null;
  hi: string | null;
  n: number;
}

export interface Nameplate {
  asset_id: string;
  vendor: string;
  product: string;
  version?: string;
}

export async function assetsFrom(store: Store, sampled = false): Promise<Nameplate[]> {
  const pick = async (sources: string[], n: number) =>
    (
      await (
        sampled
          ? sql<Row>`
    SELECT DISTINCT ON (vendor_slug, product_key) source, ranges->>'vendor' AS vendor, ranges->>'product' AS product,
      coalesce(ranges->'ranges'->0->>'version', ranges->'ranges'->0->'start'->>'version') AS lo, ranges->'ranges'->0->'end'->>'version' AS hi, 1 AS n
    FROM cve_ranges TABLESAMPLE SYSTEM (5) REPEATABLE (1)
    WHERE source = ANY(${sources}::text[]) AND ranges->'ranges'->0->>'status' = 'affected'
    ORDER BY vendor_slug, product_key LIMIT ${n}`
          : sql<Row>`
    SELECT min(source) AS source, min(range->>'vendor') AS vendor, min(range->>'product') AS product,
      min(coalesce(range->>'version', range->'start'->>'version')) AS lo, max(range->'end'->>'version') AS hi, count(*)::int AS n
    FROM cve_range_rows WHERE source = ANY(${sources}::text[]) AND range->>'status' = 'affected'
    GROUP BY vendor_slug, product_key ORDER BY md5(vendor_slug || product_key) LIMIT ${n}`
      ).execute(store.db)
    ).rows;
  const ics = await pick(['csaf'], 100);
  const it = await pick(['nvd', 'cve5'], 80);
  const suffix = ['', ' AG', ' Inc.', ' GmbH', ' Corporation'];
  const assets: Nameplate[] = [...ics, ...it].map((r, i) => {
    const vendor =
      i % 3 === 0
        ? `${r.vendor}${suffix[i % suffix.length]}`
        : i % 3 === 1
          ? r.vendor.toUpperCase()
          : r.vendor.toLowerCase();
    const product = i % 2 ? r.product.replaceAll('_', ' ') : r.product;
    const kind = i % 6;
    const version = [r.hi, r.lo, '99.0', null, r.hi ? `${r.hi}.0` : '1.0', '0.1'][kind] ?? null;
    // One in six carries its version inside the product name, as a type plate often does.
    return kind === 5 && r.hi
      ? { asset_id: `bench-${i}`, vendor, product: `${product} ${r.hi}` }
      : { asset_id: `bench-${i}`, vendor, product, ...(version ? { version } : {}) };
  });
  for (let i = assets.length; i < 200; i++)
    assets.push({
      asset_id: `bench-${i}`,
      vendor: ['Acme Industrial', 'Siemens AG', 'Contoso'][i % 3],
      product: `Unlisted Controller ${i}`,
      version: '2.1',
    });
  return assets;
}
