// Reading a VEX document back (docs/vex.md "Import"): OpenVEX 0.2.0, CycloneDX (1.4 to 1.6) or CSAF 2.0 (the VEX
// profile) JSON into the statements a decision is made of, and the products each names. Our own exports name assets
// by their IRI (…/environments/{id}/assets/{asset_id}) and, in CycloneDX, the environment itself; other documents
// name products by CPE, or by name and version. Pure.
import {
  DECISION_STATUSES,
  JUSTIFICATIONS,
  type DecisionStatus,
  type FieldError,
  type Justification,
} from './triage.ts';
import {
  CISA_JUSTIFICATION_PROPERTY,
  CYCLONEDX_JUSTIFICATIONS,
  CYCLONEDX_STATES,
  JUSTIFICATION_OF_CYCLONEDX,
  STATUS_OF_CYCLONEDX,
  type CycloneDxJustification,
  type CycloneDxState,
} from './vex-formats.ts';
import { isCveId } from './cve-id.ts';

/** A product a statement names. */
export interface ProductRef {
  /** Our IRI: the asset id it names, or the environment as a whole. */
  asset_id?: string;
  environment?: boolean;
  cpe?: string;
  vendor?: string | null;
  name?: string;
  version?: string | null;
  /** CycloneDX affects[].versions: the versions (exact, or a vers:generic range) the statement is about. */
  versions?: { version?: string; range?: string }[];
}

export interface ImportStatement {
  cve_id: string;
  status: DecisionStatus;
  justification: Justification | null;
  impact_statement: string | null;
  action_statement: string | null;
  due_date: string | null;
  /** When the statement was last changed (its own timestamp, else the document's); null when neither says. */
  timestamp: string | null;
  products: ProductRef[];
}

export type VexImportFormat = 'openvex' | 'cyclonedx' | 'csaf';
export type ReadVex =
  | {
      ok: true;
      format: VexImportFormat;
      id: string | null;
      statements: ImportStatement[];
      skipped: { index: number; reason: string }[];
    }
  | { ok: false; errors: FieldError[] };

type Json = Record<string, unknown>;
const obj = (x: unknown): Json => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Json) : {});
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
const str = (x: unknown): string | null => (typeof x === 'string' && x.trim() !== '' ? x.trim() : null);
const time = (x: unknown): string | null => {
  const s = str(x);
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

const ASSET_IRI = /\/environments\/(\d+)\/assets\/([^/?#]+)$/;
const ENV_IRI = /\/environments\/(\d+)$/;

/** Our IRIs read back: an asset's (its id) or the environment's. */
export function refOfIri(iri: string): ProductRef | null {
  const a = ASSET_IRI.exec(iri);
  if (a) {
    try {
      return { asset_id: decodeURIComponent(a[2]) };
    } catch {
      return null;
    }
  }
  return ENV_IRI.test(iri) ? { environment: true } : null;
}

/** "(due YYYY-MM-DD)" at the end of an exported action statement: the due date, and the statement without it. */
export function splitDue(action: string | null): { action: string | null; due: string | null } {
  if (!action) return { action: null, due: null };
  const m = /^(.*\S)\s+\(due (\d{4}-\d{2}-\d{2})\)$/s.exec(action);
  return m ? { action: m[1], due: m[2] } : { action, due: null };
}

const cveOf = (...xs: unknown[]): string | null => {
  for (const x of xs) {
    const s = str(x)?.toUpperCase();
    if (!s) continue;
    const m = /CVE-\d{4}-\d{4,}/.exec(s);
    if (m && isCveId(m[0])) return m[0];
  }
  return null;
};

function openVex(doc: Json): ReadVex {
  const docTime = time(doc.timestamp);
  const statements: ImportStatement[] = [];
  const skipped: { index: number; reason: string }[] = [];
  arr(doc.statements).forEach((raw, index) => {
    const s = obj(raw);
    const v = obj(s.vulnerability);
    const cve = cveOf(v.name, v['@id'], ...arr(v.aliases));
    const status = str(s.status);
    if (!cve) return void skipped.push({ index, reason: 'no CVE id' });
    if (!status || !(DECISION_STATUSES as readonly string[]).includes(status))
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
      status: status as DecisionStatus,
      justification: j && (JUSTIFICATIONS as readonly string[]).includes(j) ? (j as Justification) : null,
      impact_statement: str(s.impact_statement),
      action_statement: action,
      due_date: due,
      timestamp: time(s.timestamp) ?? time(s.last_updated) ?? docTime,
      products,
    });
  });
  return { ok: true, format: 'openvex', id: str(doc['@id']), statements, skipped };
}

function cycloneDx(doc: Json): ReadVex {
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
    if (!state || !(CYCLONEDX_STATES as readonly string[]).includes(state))
      return void skipped.push({ index, reason: `analysis.state ${state ?? 'missing'}` });
    const cisa = arr(v.properties)
      .map(obj)
      .find((p) => p.name === CISA_JUSTIFICATION_PROPERTY);
    const cisaValue = str(cisa?.value);
    const cdx = str(a.justification);
    const justification =
      cisaValue && (JUSTIFICATIONS as readonly string[]).includes(cisaValue)
        ? (cisaValue as Justification)
        : cdx && (CYCLONEDX_JUSTIFICATIONS as readonly string[]).includes(cdx)
          ? JUSTIFICATION_OF_CYCLONEDX[cdx as CycloneDxJustification]
          : null;
    const status = STATUS_OF_CYCLONEDX[state as CycloneDxState];
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

function csafVex(doc: Json): ReadVex {
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
        .find((f) => about(f) && (JUSTIFICATIONS as readonly string[]).includes(str(f.label) ?? ''));
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
        justification: status === 'not_affected' && flag ? (str(flag.label) as Justification) : null,
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

/**
 * Whether a version is within a CycloneDX affects[].versions entry: equal to its version, or inside its
 * `vers:generic` range (constraints joined by |, each =, !=, <, <=, > or >=, all of which must hold).
 */
export function versionIn(
  v: string,
  entry: { version?: string; range?: string },
  compare: (a: string, b: string) => number | string,
): boolean {
  // A comparison the version rules cannot decide (a string answer) places nothing.
  if (entry.version) return compare(v, entry.version) === 0;
  const m = /^vers:[a-z]+\/(.+)$/i.exec(entry.range ?? '');
  if (!m) return false;
  return m[1].split('|').every((c) => {
    const x = /^(>=|<=|!=|<|>|=)?(.+)$/.exec(c.trim());
    if (!x) return false;
    if (x[2] === '*') return true;
    const r = compare(v, x[2]);
    if (typeof r !== 'number') return false;
    switch (x[1] ?? '=') {
      case '>=':
        return r >= 0;
      case '<=':
        return r <= 0;
      case '>':
        return r > 0;
      case '<':
        return r < 0;
      case '!=':
        return r !== 0;
      default:
        return r === 0;
    }
  });
}

/** The statements of an OpenVEX, CycloneDX or CSAF VEX JSON document; a field error when it is none of them. */
export function readVexDocument(doc: unknown): ReadVex {
  const d = obj(doc);
  const csaf = obj(d.document);
  if (csaf.csaf_version !== undefined) {
    if (csaf.csaf_version !== '2.0')
      return {
        ok: false,
        errors: [{ field: 'body.document.csaf_version', message: 'CSAF 2.0 is read', type: 'value_error.format' }],
      };
    if (csaf.category !== 'csaf_vex') {
      return {
        ok: false,
        errors: [
          {
            field: 'body.document.category',
            message: `a CSAF document of the VEX profile (category csaf_vex), not ${typeof csaf.category === 'string' ? csaf.category : 'none'}`,
            type: 'value_error.format',
          },
        ],
      };
    }
    if (!Array.isArray(d.vulnerabilities))
      return {
        ok: false,
        errors: [
          {
            field: 'body.vulnerabilities',
            message: 'a CSAF VEX document holds vulnerabilities',
            type: 'value_error.missing',
          },
        ],
      };
    return csafVex(d);
  }
  if (typeof d['@context'] === 'string' && d['@context'].startsWith('https://openvex.dev/ns')) {
    if (!Array.isArray(d.statements))
      return {
        ok: false,
        errors: [
          { field: 'body.statements', message: 'an OpenVEX document holds statements', type: 'value_error.missing' },
        ],
      };
    return openVex(d);
  }
  if (d.bomFormat === 'CycloneDX') {
    if (!Array.isArray(d.vulnerabilities))
      return {
        ok: false,
        errors: [
          {
            field: 'body.vulnerabilities',
            message: 'a CycloneDX VEX holds vulnerabilities',
            type: 'value_error.missing',
          },
        ],
      };
    return cycloneDx(d);
  }
  return {
    ok: false,
    errors: [
      {
        field: 'body',
        message:
          'not an OpenVEX document (@context https://openvex.dev/ns/…), a CycloneDX one (bomFormat CycloneDX) or a CSAF 2.0 one (document.csaf_version)',
        type: 'value_error.format',
      },
    ],
  };
}
