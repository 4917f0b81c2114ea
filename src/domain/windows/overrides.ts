// Reviewed corrections of known MSRC data errors. Each record says what MSRC serves, what we use instead,
// and the evidence. Adding a record needs a review: the evidence must be checkable in the CVRF documents.
// Listed in docs/windows-engine.md ("Override table"). A record whose target row is not found (for example
// after Microsoft fixes its data) is simply not applied and is reported by `applyOverrides`.
import type { ProductIndex } from './evaluation-index.ts';
import { validFixedBuild } from './build.ts';

export interface OverrideRecord {
  id: string;
  cve: string;
  productIds: string[];
  /** The KB as MSRC serves it for these products. */
  servedKb: string;
  servedFixedBuild: string;
  /** What the engine uses instead. */
  useKb: string;
  useFixedBuild: string;
  evidence: string;
  reviewed: string;
}

export const OVERRIDES: readonly OverrideRecord[] = [
  {
    id: 'msrc-2026-jun-cve-2026-50507-server2025',
    cve: 'CVE-2026-50507',
    productIds: ['12436', '12437'],
    servedKb: 'KB5094126',
    servedFixedBuild: '10.0.26100.8655',
    useKb: 'KB5094125',
    useFixedBuild: '10.0.26100.32995',
    evidence:
      'CVRF 2026-Jun (revision of 2026-07-05): CVE-2026-50507 lists Windows Server 2025 (12436) and its Server Core ' +
      'installation (12437) in the same Vendor Fix row as Windows 11 24H2 (12389/12390): the client LCU KB5094126, ' +
      'FixedBuild 10.0.26100.8655. Since January 2026 Server 2025 has its own UBR line (26100.32xxx); every other ' +
      'June-2026 CVE on 12436/12437 gives KB5094125 = 10.0.26100.32995. Taken literally, a May-2026 Server 2025 host ' +
      '(26100.32860) would show as patched without the June fix. windows-engine.md trap 10.',
    reviewed: '2026-11-21',
  },
];

/** The URL MSRC itself gives for a KB on this product (from any other row), so no link is constructed. */
function servedUrl(pi: ProductIndex, kb: string): string | null {
  for (const pc of pi.cves.values()) for (const f of pc.fixes) if (f.kb === kb && f.url && !f.overrideId) return f.url;
  return null;
}

/** Apply overrides to the per-product CVE rows. Returns the ids applied. */
export function applyOverrides(
  products: Map<string, ProductIndex>,
  overrides: readonly OverrideRecord[] = OVERRIDES,
): string[] {
  const applied = new Set<string>();
  for (const o of overrides) {
    for (const pid of o.productIds) {
      const pi = products.get(pid);
      const pc = pi?.cves.get(o.cve);
      if (!pi || !pc) continue;
      for (const f of pc.fixes) {
        if (f.kb === o.servedKb && f.rawBuild === o.servedFixedBuild) {
          // The URL is looked up before the row changes: the row being replaced still names the served KB, and its
          // own URL (that KB's page) must not be taken for the used KB's.
          const url = servedUrl(pi, o.useKb);
          f.kb = o.useKb;
          f.rawBuild = o.useFixedBuild;
          f.build = validFixedBuild(o.useFixedBuild, pi.product);
          f.url = url;
          f.overrideId = o.id;
          applied.add(o.id);
        }
      }
    }
  }
  return [...applied];
}
