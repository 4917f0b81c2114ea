// Microsoft's cross-product data errors (windows-engine.md trap 10): a product's Vendor Fix row that names a KB or a
// fixed build belonging to another product. Found from the data itself once every product's update series is known
// (evaluation-index.ts finish), never from a list of cases. Such a row decides nothing: the CVE is `needs review` on
// that product, with the evidence in the note, unless a reviewed override (overrides.ts) replaced the row first. Pure.
import { looksLikeOsBuild, parseOsBuild, validFixedBuild, buildText } from './build.ts';
import type { Fix, KbInfo, ProductIndex } from './evaluation-index.ts';
import { WINDOWS_PRODUCTS, type WindowsProduct } from './products.ts';

/** Why a row belongs to another product: whose update the KB is, or whose build line the fixed build is on. */
export interface ForeignEvidence {
  /** The other product (MSRC's name). */
  product: string;
  /** The KB's place in that product's series (month, build), when the KB is one of its updates. */
  month: string | null;
  build: string | null;
  /** This product's own update of the same month, when it has one (named as evidence, never used as the fix). */
  ownKb: string | null;
}

/**
 * A product's monthly update is cited by every CVE of the month on it (15 to 160 rows); a KB cited fewer times on the
 * other product is no evidence that it is that product's update (the Secure Boot DBX update KB5012170, listed in
 * Windows 10's series with 4 or 5 rows, is shared by every Windows version).
 */
export const OWNER_MIN_ROWS = 10;

const KINDS = new Set(['security_update', 'monthly_rollup', 'security_only']);

function series(pi: ProductIndex): KbInfo[] {
  return pi.product.servicing === 'cumulative' ? pi.lcuSeries : pi.mrSeries;
}

/**
 * Whether `other` is on the same update line as `pi` for the KB `k` it lists in its series: the same OS version and
 * build numbers, and `pi` has no different update of its own in that month (Windows Server 2025 and Windows 11 24H2
 * share build 26100, but from 2026 each has its own monthly update: KB5094125 and KB5094126 in June 2026).
 */
function sameLine(pi: ProductIndex, other: WindowsProduct, k: KbInfo): boolean {
  const p = pi.product;
  if (p.major !== other.major || !p.group.some((b) => other.group.includes(b))) return false;
  return !series(pi).some((s) => s.month === k.month && s.kb !== k.kb);
}

/**
 * The product whose update series holds `kb` (cited at least OWNER_MIN_ROWS times there), not on `pi`'s line. Of
 * several (an update shared by the x64, ARM64 and Server Core products of a version), the one named is an x64 product
 * whose own build number the update's build carries, the build the row gives first.
 */
function ownerOf(
  pi: ProductIndex,
  kb: string,
  rawBuild: string | null,
  products: Map<string, ProductIndex>,
): { qi: ProductIndex; k: KbInfo } | null {
  let best: { qi: ProductIndex; k: KbInfo; score: number } | null = null;
  for (const qi of products.values()) {
    if (qi === pi) continue;
    const k = qi.kbs.get(kb);
    if (!k?.inSeries || k.rows < OWNER_MIN_ROWS || sameLine(pi, qi.product, k)) continue;
    const q = qi.product;
    const score =
      (q.arch === 'x64' && !q.core ? 4 : 0) +
      (k.build?.build === q.build ? 2 : 0) +
      (k.build && k.build.text === rawBuild ? 1 : 0);
    if (!best || score > best.score) best = { qi, k, score };
  }
  return best && { qi: best.qi, k: best.k };
}

/** The Windows product whose build line holds an OS build that is not one of `p`'s (its x64 edition when there is one). */
function lineOf(raw: string, p: WindowsProduct): WindowsProduct | null {
  const b = parseOsBuild(buildText(raw));
  if (!b) return null;
  let hit: WindowsProduct | null = null;
  for (const q of WINDOWS_PRODUCTS.values()) {
    if (q === p || q.core || q.major !== b.major || !q.group.includes(b.build)) continue;
    if (!hit || (q.arch === 'x64' && hit.arch !== 'x64')) hit = q;
  }
  return hit;
}

/** The evidence that a row of `pi` belongs to another product, or null when it is the product's own (or unclear). */
export function foreignEvidence(pi: ProductIndex, f: Fix, products: Map<string, ProductIndex>): ForeignEvidence | null {
  if (f.overrideId || !f.kb || !KINDS.has(f.kind) || pi.kbs.get(f.kb)?.inSeries) return null;
  const owner = ownerOf(pi, f.kb, f.rawBuild, products);
  if (owner) {
    const month = owner.k.month;
    const own = series(pi).find((s) => s.month === month && s.kb !== f.kb) ?? null;
    return { product: owner.qi.product.name, month, build: owner.k.build?.text ?? null, ownKb: own?.kb ?? null };
  }
  // No product's series holds the KB, but its fixed build is an OS build of another product's line (CVE-2022-2601 on
  // Windows 11 24H2: 10.0.22621.5189).
  if (f.rawBuild && looksLikeOsBuild(f.rawBuild) && !validFixedBuild(f.rawBuild, pi.product)) {
    const q = lineOf(f.rawBuild, pi.product);
    if (q) return { product: q.name, month: null, build: null, ownKb: null };
  }
  return null;
}

/** Marks every row of every product that belongs to another product (Fix.foreign). Returns the rows marked. */
export function markCrossProduct(products: Map<string, ProductIndex>): number {
  let n = 0;
  for (const pi of products.values()) {
    for (const pc of pi.cves.values()) {
      for (const f of pc.fixes) {
        f.foreign = foreignEvidence(pi, f, products);
        if (f.foreign) n++;
      }
    }
  }
  return n;
}

/** The note of a CVE whose rows name another product's update: what Microsoft lists, and why it is not this product's. */
export function foreignNote(productName: string, rows: Fix[], own: Fix | null): string {
  const parts = rows.map((f) => {
    const e = f.foreign!;
    const served = `${f.kb}${f.rawBuild ? ` with fixed build ${f.rawBuild}` : ''}`;
    const whose = e.month
      ? `an update of ${e.product} (${e.month}${e.build ? `, build ${e.build}` : ''})`
      : `a build of ${e.product}, not of this product's line`;
    return `Microsoft lists ${served} for ${productName}, which is ${whose}${e.ownKb ? `; this product's own update of that month is ${e.ownKb}` : ''}`;
  });
  const also = own?.kb ? `. Microsoft also lists ${own.kb} for this product` : '';
  return `${parts.join('. ')}${also}. Another product's update cannot confirm or clear this CVE here: check with Microsoft which update of ${productName} fixes it`;
}
