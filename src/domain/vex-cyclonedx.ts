// CycloneDX (1.4 to 1.6) VEX read back (docs/vex.md "Import"): each vulnerability's analysis (state,
// justification, the CISA justification property) and the components its affects[] refer to by bom-ref (our IRIs,
// a CPE, or vendor, name and version), with the versions it is about. Pure.
import { JUSTIFICATIONS } from './triage.ts';
import {
  CISA_JUSTIFICATION_PROPERTY,
  CYCLONEDX_JUSTIFICATIONS,
  CYCLONEDX_STATES,
  JUSTIFICATION_OF_CYCLONEDX,
  STATUS_OF_CYCLONEDX,
} from './vex-formats.ts';
import {
  arr,
  cveOf,
  obj,
  refOfIri,
  splitDue,
  str,
  time,
  type ImportStatement,
  type Json,
  type ProductRef,
  type ReadVex,
} from './vex-statements.ts';
import { isOneOf } from './one-of.ts';

export function cycloneDx(doc: Json): ReadVex {
  const meta = obj(doc.metadata);
  const docTime = time(meta.timestamp);
  // bom-ref → the product it names: the metadata component and the components (nested ones too).
  const refs = new Map<string, ProductRef>();
  const addComponent = (c: Json, depth = 0) => {
    const ref = str(c['bom-ref']);
    if (ref) {
      const ours = refOfIri(ref);
      const cpe = str(c.cpe);
      refs.set(
        ref,
        ours ??
          (cpe
            ? { cpe }
            : {
                vendor: str(obj(c.manufacturer).name) ?? str(obj(c.supplier).name) ?? str(c.publisher),
                name: str(c.name) ?? undefined,
                version: str(c.version),
              }),
      );
    }
    if (depth < 8)
      arr(c.components)
        .map(obj)
        .forEach((x) => addComponent(x, depth + 1));
  };
  addComponent(obj(meta.component));
  arr(doc.components)
    .map(obj)
    .forEach((c) => addComponent(c));
  const statements: ImportStatement[] = [];
  const skipped: { index: number; reason: string }[] = [];
  arr(doc.vulnerabilities).forEach((raw, index) => {
    const v = obj(raw);
    const cve = cveOf(v.id, ...arr(v.references).map((r) => obj(r).id));
    const a = obj(v.analysis);
    const state = str(a.state);
    if (!cve) return void skipped.push({ index, reason: 'no CVE id' });
    if (!state || !isOneOf(CYCLONEDX_STATES, state))
      return void skipped.push({ index, reason: `analysis.state ${state ?? 'missing'}` });
    const cisa = arr(v.properties)
      .map(obj)
      .find((p) => p.name === CISA_JUSTIFICATION_PROPERTY);
    const cisaValue = str(cisa?.value);
    const cdx = str(a.justification);
    const justification =
      cisaValue && isOneOf(JUSTIFICATIONS, cisaValue)
        ? cisaValue
        : cdx && isOneOf(CYCLONEDX_JUSTIFICATIONS, cdx)
          ? JUSTIFICATION_OF_CYCLONEDX[cdx]
          : null;
    const status = STATUS_OF_CYCLONEDX[state];
    const { action, due } = splitDue(str(v.recommendation) ?? str(v.workaround));
    const products = arr(v.affects)
      .map(obj)
      .map((x) => {
        const ref = str(x.ref);
        if (!ref) return null;
        const p = refs.get(ref) ?? refOfIri(ref) ?? { name: ref.replace(/^.*#/, '') };
        const versions = arr(x.versions)
          .map(obj)
          .map((y) => ({ version: str(y.version) ?? undefined, range: str(y.range) ?? undefined }))
          .filter((y) => y.version || y.range);
        return versions.length ? { ...p, versions } : p;
      })
      .filter((x): x is ProductRef => x !== null);
    statements.push({
      cve_id: cve,
      status,
      justification: status === 'not_affected' ? justification : null,
      impact_statement: str(a.detail),
      action_statement: action,
      due_date: due,
      timestamp: time(a.lastUpdated) ?? time(v.updated) ?? time(a.firstIssued) ?? docTime,
      products,
    });
  });
  return { ok: true, format: 'cyclonedx', id: str(doc.serialNumber), statements, skipped };
}
