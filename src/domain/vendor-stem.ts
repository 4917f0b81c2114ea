// One organisation under two vendor slugs: "Apache Software Foundation" and the CPE token "apache" (docs/correlation.md
// §2). A slug's stem drops a trailing organisation word; two slugs with one stem name one organisation, and the stem
// in front of a product key may be dropped when the keys are compared. Pure.
import { isTableSlug } from './vendors.ts';

/**
 * Words an organisation's name carries after its own name: "Apache Software Foundation", "Jenkins Project", "gVectors
 * Team", "Unisoc Technologies", "A10 Networks", "matrix-org". CNA records spell the vendor so, CPE names and other
 * sources often without (`apache`, `jenkins`, `a10networks` vs `a10`), and the vendor slugs (concatenated words) then
 * differ only by the tail. Longer tails first ("softwarefoundation" before "foundation" and "software").
 */
const ORG_TAILS = [
  'softwarefoundation',
  'foundation',
  'technologies',
  'technology',
  'networks',
  'software',
  'project',
  'systems',
  'group',
  'team',
  'labs',
  'org',
  'dev',
];
/** The shortest stem a tail is taken from (so "georg" keeps its "org"). */
const MIN_STEM = 3;

/**
 * The organisation a vendor slug names: the slug without one trailing organisation word (ORG_TAILS) and then a
 * leading "the" ("thewikimediafoundation" → "wikimedia"). A vendor of the alias table (domain/vendors.ts) is its own
 * stem: its spellings are listed there. Two slugs with one stem name one organisation.
 */
export function vendorStem(slug: string): string {
  if (isTableSlug(slug)) return slug;
  for (const t of ORG_TAILS) {
    if (slug.length - t.length >= MIN_STEM && slug.endsWith(t)) {
      const s = slug.slice(0, -t.length);
      if (s === 'the') return slug;
      return s.startsWith('the') && s.length - 3 >= MIN_STEM ? s.slice(3) : s;
    }
  }
  return slug;
}

/**
 * A product key without the organisation's stem in front: "apache tomcat" → "tomcat" for the stem `apache` (a
 * product of "Apache Software Foundation" keeps its "Apache": only the vendor's whole name is dropped from the
 * front); "palo alto pan os" → "pan os" for `paloalto`. The key itself when nothing would remain.
 */
export function stemFreeKey(key: string, stem: string): string {
  const w = key.split(' ');
  let acc = '';
  for (let i = 0; i < w.length - 1; i++) {
    acc += w[i];
    if (acc === stem) return w.slice(i + 1).join(' ');
    if (!stem.startsWith(acc)) break;
  }
  return key;
}
