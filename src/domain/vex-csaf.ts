// CSAF 2.0 documents of the VEX profile read back (docs/vex.md "Import"): each vulnerability's product_status lists
// in VEX's words, the flags, impact threats and remediations about those products, and the products the ids name in
// the product tree (our IRIs, a CPE, or the vendor, name and version of the branches). Pure.
import { JUSTIFICATIONS, type DecisionStatus, type Justification } from './triage.ts';
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

/** CSAF product_status lists in VEX's words (first_fixed is fixed; first_ and last_affected are affected). */
const CSAF_STATUS: Record<string, DecisionStatus> = {
  known_not_affected: 'not_affected',
  fixed: 'fixed',
  first_fixed: 'fixed',
  known_affected: 'affected',
  first_affected: 'affected',
  last_affected: 'affected',
  under_investigation: 'under_investigation',
};

/**
 * CSAF product ids → the products they name: a full product name whose identification helper holds our asset IRI
 * (x_generic_uris) names that asset, else its CPE; a branch product is named by the vendor, product name and
 * version of the branches above it (a product_version_range as a vers: range).
 */
function csafProducts(tree: Json): Map<string, ProductRef> {
  const out = new Map<string, ProductRef>();
  const full = (fp: Json, named: ProductRef) => {
    const id = str(fp.product_id);
    if (!id) return;
    const helper = obj(fp.product_identification_helper);
    const ours = arr(helper.x_generic_uris)
      .map((u) => str(obj(u).uri))
      .map((u) => (u ? refOfIri(u) : null))
      .find((r) => r?.asset_id !== undefined);
    const cpe = str(helper.cpe);
    out.set(id, ours ?? (cpe ? { cpe } : { ...named, name: named.name ?? str(fp.name) ?? undefined }));
  };
  const walk = (b: Json, at: ProductRef, depth: number) => {
    const name = str(b.name);
    const category = str(b.category);
    const here: ProductRef = { ...at };
    if (category === 'vendor') here.vendor = name;
    else if (category === 'product_name' || category === 'product_family') here.name = name ?? undefined;
    else if (category === 'product_version') here.version = name;
    else if (category === 'product_version_range' && name?.startsWith('vers:')) here.versions = [{ range: name }];
    if (b.product) full(obj(b.product), here);
    if (depth < 12)
      arr(b.branches)
        .map(obj)
        .forEach((x) => walk(x, here, depth + 1));
  };
  arr(tree.branches)
    .map(obj)
    .forEach((b) => walk(b, {}, 0));
  arr(tree.full_product_names)
    .map(obj)
    .forEach((fp) => full(fp, {}));
  arr(tree.relationships)
    .map(obj)
    .forEach((r) => full(obj(r.full_product_name), {}));
  return out;
}

/** The justification a flag states: its label, when that is one of CISA's five; else null. */
function justificationOf(flag: Json): Justification | null {
  const label = str(flag.label);
  return label !== null && isOneOf(JUSTIFICATIONS, label) ? label : null;
}

export function csafVex(doc: Json): ReadVex {
  const tracking = obj(obj(doc.document).tracking);
  const docTime = time(tracking.current_release_date) ?? time(tracking.initial_release_date);
  const tree = obj(doc.product_tree);
  const products = csafProducts(tree);
  const groups = new Map(
    arr(tree.product_groups)
      .map(obj)
      .map((g) => [
        str(g.group_id) ?? '',
        arr(g.product_ids)
          .map(str)
          .filter((x): x is string => x !== null),
      ]),
  );
  // The product ids an item (flag, threat, remediation) names, its groups' included.
  const idsOf = (x: Json) =>
    new Set(
      [...arr(x.product_ids).map(str), ...arr(x.group_ids).flatMap((g) => groups.get(str(g) ?? '') ?? [])].filter(
        (y): y is string => y !== null,
      ),
    );
  const statements: ImportStatement[] = [];
  const skipped: { index: number; reason: string }[] = [];
  arr(doc.vulnerabilities).forEach((raw, index) => {
    const v = obj(raw);
    const cve = cveOf(v.cve, ...arr(v.ids).map((x) => obj(x).text));
    if (!cve) return void skipped.push({ index, reason: 'no CVE id' });
    const byStatus = Object.entries(obj(v.product_status)).filter(([k]) => k in CSAF_STATUS);
    if (!byStatus.length) return void skipped.push({ index, reason: 'no product_status of the VEX profile' });
    for (const [list, ids] of byStatus) {
      const pids = arr(ids)
        .map(str)
        .filter((x): x is string => x !== null);
      const status = CSAF_STATUS[list];
      const about = (x: Json) => pids.some((p) => idsOf(x).has(p));
      const flag = arr(v.flags)
        .map(obj)
        .find((f) => about(f) && justificationOf(f) !== null);
      const impact = arr(v.threats)
        .map(obj)
        .filter((t) => t.category === 'impact' && about(t))
        .map((t) => str(t.details))
        .filter((x) => x !== null);
      const fixes = arr(v.remediations).map(obj).filter(about);
      const { action, due } = splitDue(
        fixes
          .map((r) => str(r.details))
          .filter((x) => x !== null)
          .join(' ') || null,
      );
      const dates = [flag, ...arr(v.threats).map(obj).filter(about), ...fixes]
        .map((x) => time(x?.date))
        .filter((x): x is string => x !== null)
        .sort();
      statements.push({
        cve_id: cve,
        status,
        justification: status === 'not_affected' && flag ? justificationOf(flag) : null,
        impact_statement: impact.join(' ') || null,
        action_statement: action,
        due_date: due,
        timestamp: dates.at(-1) ?? docTime,
        products: pids.map((p) => products.get(p) ?? { name: p }),
      });
    }
  });
  return { ok: true, format: 'csaf', id: str(tracking.id), statements, skipped };
}
