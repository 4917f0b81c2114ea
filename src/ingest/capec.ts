// MITRE CAPEC in STIX 2.1 (as published in mitre/cti `capec/2.1/`): either STIX bundles
// ({type: "bundle", objects: [...]}) or one STIX object per line. Attack patterns carry the CAPEC id and
// the related weaknesses in `external_references` (source_name "capec" / "cwe"), the typical severity in
// `x_capec_typical_severity`. The CAPEC XML catalog is not read (no real XML fixture is available; see
// docs/enrichment.md).
import type { CapecRecord, IngestItem } from './types.ts';
import { arr, obj as objOf, jsonDocuments } from './json.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export function capecFromStix(obj: Json): CapecRecord | null {
  if (!obj || typeof obj !== 'object' || obj.type !== 'attack-pattern') return null;
  let capecId: number | null = null;
  const cwes = new Set<number>();
  for (const ref of arr(obj.external_references).map(objOf)) {
    const ext = String(ref.external_id ?? '');
    if (ref.source_name === 'capec') {
      const m = /^CAPEC-(\d+)$/.exec(ext);
      if (m) capecId = Number(m[1]);
    } else if (ref.source_name === 'cwe') {
      const m = /^CWE-(\d+)$/.exec(ext);
      if (m) cwes.add(Number(m[1]));
    }
  }
  if (capecId === null) return null;
  const status = typeof obj.x_capec_status === 'string' ? obj.x_capec_status : null;
  return {
    capec_id: capecId,
    name: String(obj.name ?? ''),
    typical_severity: typeof obj.x_capec_typical_severity === 'string' ? obj.x_capec_typical_severity : null,
    status,
    cwes: [...cwes].sort((a, b) => a - b),
    deprecated: obj.revoked === true || status === 'Deprecated' || status === 'Obsolete',
  };
}

function* itemsFromObject(obj: Json, seenVersion: { v: string | null }): Generator<IngestItem> {
  const rec = capecFromStix(obj);
  if (!rec) return;
  if (seenVersion.v === null && typeof obj.x_capec_version === 'string') {
    seenVersion.v = obj.x_capec_version;
    yield {
      kind: 'meta',
      meta: { feed: 'capec-stix', version: obj.x_capec_version, date: null, declared_count: null },
    };
  }
  yield { kind: 'capec', record: rec };
}

export async function* readCapec(path: string, layout: 'bundle' | 'jsonl'): AsyncGenerator<IngestItem> {
  const seen = { v: null as string | null };
  for await (const { doc } of jsonDocuments(path, layout === 'bundle' ? 'document' : 'jsonl', 'STIX JSON object')) {
    const objects =
      layout === 'bundle' && doc && doc.type === 'bundle' && Array.isArray(doc.objects) ? doc.objects : [doc];
    for (const obj of objects) yield* itemsFromObject(obj, seen);
  }
}
