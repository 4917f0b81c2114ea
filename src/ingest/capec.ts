// MITRE CAPEC in STIX 2.1 (as published in mitre/cti `capec/2.1/`): either STIX bundles
// ({type: "bundle", objects: [...]}) or one STIX object per line. Attack patterns carry the CAPEC id and
// the related weaknesses in `external_references` (source_name "capec" / "cwe"), the typical severity in
// `x_capec_typical_severity`. The CAPEC XML catalog is not read (no real XML fixture is available; see
// docs/enrichment.md).
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { CapecRecord, IngestItem } from './types.ts';
import { arr, jsonDocuments, Loose, record } from './json.ts';

/** A STIX attack pattern; its members are read one by one, each when it has its type. */
const AttackPattern = Compile(
  Type.Object({
    type: Type.Literal('attack-pattern'),
    external_references: Loose,
    name: Loose,
    revoked: Loose,
    x_capec_status: Loose,
    x_capec_typical_severity: Loose,
  }),
);

/** A member as String() spells it, '' when it is missing or null. */
function text(x: unknown): string {
  const spelt = String(x);
  return x === undefined || x === null ? '' : spelt;
}

export function capecFromStix(obj: unknown): CapecRecord | null {
  if (!AttackPattern.Check(obj)) return null;
  let capecId: number | null = null;
  const cwes = new Set<number>();
  for (const ref of arr(obj.external_references).map(record)) {
    const ext = text(ref.external_id);
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
    name: text(obj.name),
    typical_severity: typeof obj.x_capec_typical_severity === 'string' ? obj.x_capec_typical_severity : null,
    status,
    cwes: [...cwes].sort((a, b) => a - b),
    deprecated: obj.revoked === true || status === 'Deprecated' || status === 'Obsolete',
  };
}

function* itemsFromObject(obj: unknown, seenVersion: { v: string | null }): Generator<IngestItem> {
  const rec = capecFromStix(obj);
  if (!rec) return;
  const version = record(obj).x_capec_version;
  if (seenVersion.v === null && typeof version === 'string') {
    seenVersion.v = version;
    yield { kind: 'meta', meta: { feed: 'capec-stix', version, date: null, declared_count: null } };
  }
  yield { kind: 'capec', record: rec };
}

export async function* readCapec(path: string, layout: 'bundle' | 'jsonl'): AsyncGenerator<IngestItem> {
  const seen: { v: string | null } = { v: null };
  for await (const { doc } of jsonDocuments(path, layout === 'bundle' ? 'document' : 'jsonl', 'STIX JSON object')) {
    const bundle = record(doc);
    const objects =
      layout === 'bundle' && bundle.type === 'bundle' && Array.isArray(bundle.objects) ? arr(bundle.objects) : [doc];
    for (const obj of objects) yield* itemsFromObject(obj, seen);
  }
}
