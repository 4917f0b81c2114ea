// CAPEC attack patterns of a CVE, derived from its CWEs through the CAPEC catalog's Related_Weaknesses
// (spec §2.4). Pure: deduplicated by capec_id, every bridging CWE in via_cwe, never null.
import type { CapecEntry, CapecSource } from './cve-document.ts';
import type { CapecRecord } from './records.ts';

export interface CapecIndex {
  byCwe: Map<number, CapecRecord[]>;
  source: CapecSource;
}

export const CAPEC_MAPPING =
  'CWE → CAPEC via the CAPEC catalog Related_Weaknesses of each attack pattern (deprecated/obsolete patterns excluded)';

export const CAPEC_CATALOG = 'MITRE CAPEC (STIX 2.1)';

/** meta.capec_source for a catalog version (spec §2.4). */
export function capecSourceFor(version: string | null): CapecSource {
  return { catalog: CAPEC_CATALOG, version: version ?? 'unknown', mapping: CAPEC_MAPPING };
}

export function buildCapecIndex(records: Iterable<CapecRecord>, version: string | null): CapecIndex {
  const byCwe = new Map<number, CapecRecord[]>();
  for (const r of records) {
    if (r.deprecated) continue;
    for (const cwe of r.cwes) {
      const list = byCwe.get(cwe) ?? [];
      if (!list.some((x) => x.capec_id === r.capec_id)) list.push(r);
      byCwe.set(cwe, list);
    }
  }
  return { byCwe, source: capecSourceFor(version) };
}

export function capecForCwes(cwes: number[], index: CapecIndex): CapecEntry[] {
  const out = new Map<number, CapecEntry>();
  for (const cwe of cwes) {
    for (const r of index.byCwe.get(cwe) ?? []) {
      const e = out.get(r.capec_id);
      if (e) {
        if (!e.via_cwe.includes(cwe)) e.via_cwe.push(cwe);
      } else {
        out.set(r.capec_id, {
          capec_id: r.capec_id,
          name: r.name,
          slug: `capec-${r.capec_id}`,
          typical_severity: r.typical_severity,
          via_cwe: [cwe],
        });
      }
    }
  }
  return [...out.values()]
    .map((e) => ({ ...e, via_cwe: e.via_cwe.sort((a, b) => a - b) }))
    .sort((a, b) => a.capec_id - b.capec_id);
}
