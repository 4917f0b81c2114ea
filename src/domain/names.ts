// Look-alike names (docs/api-conventions.md "Names"): two names of one organization must not read the same. The
// comparison key is Unicode's confusables skeleton (UTS #39 §4: NFD, each character replaced by its prototype from
// confusables.txt, NFD again; the mapping is the `unhomoglyph` package's copy of confusables.txt), taken after NFKC
// (full-width and compatibility letters fold to their plain form, which the skeleton alone keeps) and without
// default-ignorable characters (the bidi marks U+200E/U+200F that names may hold, the joiners).
import unhomoglyph from 'unhomoglyph';

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The key two names share when they look alike: "prod", "рrod" (Cyrillic р), "ｐｒｏｄ" and "prοd" (Greek ο) give one. */
export function nameSkeleton(name: string): string {
  const folded = name.normalize('NFKC').replace(IGNORABLE, '').trim();
  return unhomoglyph(folded.normalize('NFD')).normalize('NFD');
}

/** The first of `others` that looks like `name` without being exactly it (an exact duplicate is another rule), or null. */
export function confusableWith(name: string, others: readonly string[]): string | null {
  const key = nameSkeleton(name);
  return others.find((o) => o !== name && nameSkeleton(o) === key) ?? null;
}
