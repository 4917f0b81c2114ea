// Title rule (docs/enrichment.md "Title"): a source title when one exists — the CNA's own title (the CVE
// record's), then the CSAF vulnerability title, the MSRC title, the KEV vulnerabilityName, in that order (titles that
// are only a CVE id are not titles) — otherwise "<weakness> in <vendor> <product>", composed from the record. Never
// empty. The CNA's title is the CVE's own name: no other source replaces it (a longer one is shortened).
// Some sources put a whole description where the title goes (MSRC's third-party CBL-Mariner entries:
// "Vulnerability in the Oracle Java SE … (component: ImageIO). Supported versions …", up to 1,000
// characters): a title longer than TITLE_MAX is passed over for a shorter source title, and when no source
// has one it is cut to its first sentence, then at a word boundary with "…".
import type { MergedCve } from './merge.ts';

export const TITLE_MAX = 120;

export interface TitleFacts {
  weakness: string | null; // CWE catalog name of the CVE's first CWE
  vendor: string | null;
  product: string | null;
}

export function composeTitle(cveId: string, f: TitleFacts): string {
  const weakness = f.weakness?.trim() || 'Vulnerability';
  const target = productPhrase(f.vendor, f.product);
  return target ? `${weakness} in ${target}` : `${weakness} (${cveId})`;
}

/**
 * The vendor and product as a phrase: "Siemens SIMATIC S7-1500", but "Apache HTTP Server" for Apache's "Apache HTTP
 * Server" (a product that starts with the vendor's name is not prefixed again); either alone when the other is
 * missing; '' for neither. Titles and the analyst summary say it the same way.
 */
export function productPhrase(vendor: string | null, product: string | null): string {
  if (vendor && product)
    return (product.toLowerCase().startsWith(vendor.toLowerCase()) ? product : `${vendor} ${product}`).trim();
  return (vendor ?? product ?? '').trim();
}

/** A description-length text as a title: its first sentence, then cut at a word boundary with "…". */
export function shortenTitle(text: string, max = TITLE_MAX): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  // A sentence ending at the very end would be the whole text, which is longer than max: only one followed by a space counts.
  // Stryker disable next-line Regex: exec tries position 0 first, and a lazy match from 0 exists whenever any match does
  const sentence = /^(.+?[.!?])\s/.exec(t)?.[1];
  if (sentence && sentence.length <= max) return sentence.replace(/\.$/, '');
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:(-]+$/, '')}…`;
}

export function chooseTitle(merged: MergedCve, facts: TitleFacts): string {
  const cna = merged.titles.find((x) => x.source === 'cve5' && x.title.trim() !== '');
  if (cna) return shortenTitle(cna.title);
  const titles = merged.titles.map((x) => x.title.replace(/\s+/g, ' ').trim()).filter((t) => t !== '');
  const fitting = titles.find((t) => t.length <= TITLE_MAX);
  if (fitting) return fitting;
  return titles.length ? shortenTitle(titles[0]) : composeTitle(merged.cve_id, facts);
}
