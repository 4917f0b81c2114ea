// Title rule (docs/enrichment.md "Title"): a source title when one exists — the CSAF vulnerability
// title, the MSRC title, the KEV vulnerabilityName, in that order (titles that are only a CVE id are
// not titles) — otherwise "<weakness> in <vendor> <product>", composed from the record. Never empty.
import type { MergedCve } from './merge.ts';

export interface TitleFacts {
  weakness: string | null; // CWE catalog name of the CVE's first CWE
  vendor: string | null;
  product: string | null;
}

export function composeTitle(cveId: string, f: TitleFacts): string {
  const weakness = f.weakness?.trim() || 'Vulnerability';
  let target = '';
  if (f.vendor && f.product) {
    target = f.product.toLowerCase().startsWith(f.vendor.toLowerCase()) ? f.product : `${f.vendor} ${f.product}`;
  } else target = f.vendor ?? f.product ?? '';
  return target ? `${weakness} in ${target.trim()}` : `${weakness} (${cveId})`;
}

export function chooseTitle(merged: MergedCve, facts: TitleFacts): string {
  const t = merged.titles.find((x) => x.title.trim() !== '');
  return t ? t.title.trim() : composeTitle(merged.cve_id, facts);
}
