// OpenVEX 0.2.0 statements read back (docs/vex.md "Import"): a statement's vulnerability, status, justification
// and action, and the products it names (our IRIs, else a CPE of the identifiers, else the @id as a name). Pure.
import { DECISION_STATUSES, JUSTIFICATIONS } from './triage.ts';
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

export function openVex(doc: Json): ReadVex {
  const docTime = time(doc.timestamp);
  const statements: ImportStatement[] = [];
  const skipped: { index: number; reason: string }[] = [];
  arr(doc.statements).forEach((raw, index) => {
    const s = obj(raw);
    const v = obj(s.vulnerability);
    const cve = cveOf(v.name, v['@id'], ...arr(v.aliases));
    const status = str(s.status);
    if (!cve) return void skipped.push({ index, reason: 'no CVE id' });
    if (!status || !isOneOf(DECISION_STATUSES, status))
      return void skipped.push({ index, reason: `status ${status ?? 'missing'}` });
    const j = str(s.justification);
    const { action, due } = splitDue(str(s.action_statement));
    const products = arr(s.products)
      .map(obj)
      .map((p): ProductRef => {
        const iri = str(p['@id']);
        const ours = iri ? refOfIri(iri) : null;
        if (ours) return ours;
        const cpe = str(obj(p.identifiers).cpe23) ?? str(obj(p.identifiers).cpe22);
        return cpe ? { cpe } : { name: iri ?? undefined };
      });
    statements.push({
      cve_id: cve,
      status,
      justification: j && isOneOf(JUSTIFICATIONS, j) ? j : null,
      impact_statement: str(s.impact_statement),
      action_statement: action,
      due_date: due,
      timestamp: time(s.timestamp) ?? time(s.last_updated) ?? docTime,
      products,
    });
  });
  return { ok: true, format: 'openvex', id: str(doc['@id']), statements, skipped };
}
