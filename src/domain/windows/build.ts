// OS build strings, FixedBuild validation (trap 9), SubType classes and Supercedence parsing (trap 14).
import type { WindowsProduct } from './products.ts';

export interface OsBuild {
  major: string; // "10.0"
  build: number; // CurrentBuild
  ubr: number | null; // null for a three-part build (needs_revision)
  text: string;
}

/** Parse a host os_build: digits and dots, 3 or 4 parts. Null when not a Windows build. */
export function parseOsBuild(s: string): OsBuild | null {
  const t = s.trim();
  if (!/^\d+(\.\d+){2,3}$/.test(t)) return null;
  const p = t.split('.');
  return {
    major: `${Number(p[0])}.${Number(p[1])}`,
    build: Number(p[2]),
    ubr: p.length === 4 ? Number(p[3]) : null,
    text: t,
  };
}

/**
 * Clean and validate a FixedBuild for a product: strip zero-width spaces and whitespace; it must have four
 * numeric parts, the product's major.minor, and a build inside the product's servicing group.
 */
export function validFixedBuild(raw: string | null, product: WindowsProduct): OsBuild | null {
  if (!raw || !looksLikeOsBuild(raw)) return null;
  const b = parseOsBuild(buildText(raw));
  if (!b || b.major !== product.major || !product.group.includes(b.build)) return null;
  return b;
}

/** A FixedBuild text without the zero-width characters and whitespace Microsoft's rows carry around and inside it. */
export function buildText(raw: string): string {
  return raw.replace(/[\u200b\u200c\u200d\ufeff\s]/g, '');
}

/** Whether a FixedBuild text has an OS build's form (four dot-separated numbers), whatever product it belongs to. */
export function looksLikeOsBuild(raw: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(buildText(raw));
}

export type FixKind =
  'security_update' | 'monthly_rollup' | 'security_only' | 'hotpatch' | 'ssu' | 'standalone' | 'other';

/** Normalise SubType case and spaces and classify it (windows-engine.md §1.4 list). */
export function classifySubType(subType: string | null): FixKind {
  const s = (subType ?? '').toLowerCase().replace(/[\s_-]+/g, '');
  switch (s) {
    case 'securityupdate':
      return 'security_update';
    case 'monthlyrollup':
      return 'monthly_rollup';
    case 'securityonly':
      return 'security_only';
    case 'securityhotpatchupdate':
    case 'azurehotpatch':
    case 'hotpatch':
      return 'hotpatch';
    case 'servicingstackupdate':
      return 'ssu';
    case 'standalone':
    case 'standalonesecurityupdate':
      return 'standalone';
    default:
      return 'other'; // IE Cumulative, Preview Rollup, Setup DU, VIA Processors ..., empty
  }
}

/** "KB5034768", "5034768" → "KB5034768"; anything else → null. */
export function normaliseKb(s: string | null | undefined): string | null {
  if (!s) return null;
  const m = /^\s*(?:KB)?(\d{6,8})\s*$/i.exec(s);
  return m ? `KB${m[1]}` : null;
}

/** Split free-text Supercedence into KBs: separators , ; and spaces; MSyy-nnn bulletin ids dropped. */
export function parseSupercedence(s: string | null): string[] {
  if (!s) return [];
  const out: string[] = [];
  for (const part of s.split(/[,;\s]+/)) {
    if (!part || /^MS\d{2}-\d{3}$/i.test(part)) continue;
    const kb = normaliseKb(part);
    if (kb && !out.includes(kb)) out.push(kb);
  }
  return out;
}

const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

/** "2024-Aug" / "2018-FEB" / "2017-May-B" → "2024-08". Null for other IDs. */
export function docMonth(docId: string): string | null {
  const m = /^(\d{4})-([A-Za-z]{3})/.exec(docId);
  if (!m) return null;
  const mm = MONTHS[m[2].toLowerCase()];
  return mm ? `${m[1]}-${mm}` : null;
}
