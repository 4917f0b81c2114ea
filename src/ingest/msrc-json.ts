// MSRC CVRF documents in the JSON form the MSRC API serves with `Accept: application/json`
// (shared/docs/windows-engine.md §1.5): strings wrapped as {"Value": ...}, XML Type strings turned into integers.
import { isRecord, record } from './json.ts';
import { collectAdvisoryUrls, emptyVuln, msrcDateToIso, num } from './msrc-text.ts';
import type { MsrcDocument } from '../domain/windows/msrc-types.ts';

const THREAT_TYPES = ['Impact', 'Exploit Status', 'Target Set', 'Severity'] as const;
// Type 6 "Release Notes" is not verified; the engine keys on Type 2 (Vendor Fix) only.
const REMEDIATION_TYPES = [
  'Workaround',
  'Mitigation',
  'Vendor Fix',
  'None Available',
  'Will Not Fix',
  'Known Issue',
  'Release Notes',
] as const;
const STATUS_TYPES = [
  'First Affected',
  'First Fixed',
  'Fixed',
  'Known Affected',
  'Known Not Affected',
  'Last Affected',
  'Recommended',
] as const;
const NOTE_TYPES = [
  'General',
  'Details',
  'Description',
  'Summary',
  'FAQ',
  'Legal Disclaimer',
  'Other',
  'Tag',
  'CNA',
] as const;

function val(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isRecord(v) && 'Value' in v) return val(v.Value);
  return null;
}

function arr(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v === null || v === undefined) return [];
  return [v];
}

function strs(v: unknown): string[] {
  return arr(v)
    .map((x) => val(x))
    .filter((x): x is string => x !== null)
    .map((s) => s.trim());
}

function typeName(v: unknown, names: readonly string[]): string {
  if (typeof v === 'number') return names[v] ?? String(v);
  return val(v) ?? '';
}

// ProductTree Branch types in the JSON form: 0 Vendor, 1 Product Family (§1.5; "Browser" is Type 1).
const BRANCH_PRODUCT_FAMILY = 1;

function collectJsonProducts(
  node: unknown,
  into: Map<string, string>,
  families: Map<string, string>,
  family: string | null,
): void {
  for (const item of arr(node)) {
    if (!isRecord(item)) continue;
    const o = item;
    if (typeof o.ProductID === 'string') {
      const name = val(o.Value) ?? '';
      if (!into.has(o.ProductID)) {
        into.set(o.ProductID, name.trim());
        if (family) families.set(o.ProductID, family);
      }
    }
    const isFamily = o.Type === BRANCH_PRODUCT_FAMILY || o.Type === 'Product Family';
    const inner = isFamily ? val(o.Name)?.trim() || family : family;
    if (o.Items) collectJsonProducts(o.Items, into, families, inner);
    if (o.Branch) collectJsonProducts(o.Branch, into, families, inner);
  }
}

export function parseCvrfJson(input: unknown): MsrcDocument {
  if (!input || typeof input !== 'object') throw new Error('not an MSRC CVRF JSON document');
  const root = record(input);
  const tracking = record(root.DocumentTracking);
  const ident = record(tracking.Identification);
  const id = val(ident.ID)?.trim() ?? '';
  if (!id) throw new Error('not an MSRC CVRF JSON document: no DocumentTracking.Identification.ID');
  const revisions = arr(tracking.RevisionHistory);
  const doc: MsrcDocument = {
    id,
    title: val(root.DocumentTitle)?.trim() ?? '',
    initialReleaseDate: msrcDateToIso(val(tracking.InitialReleaseDate)),
    currentReleaseDate: msrcDateToIso(val(tracking.CurrentReleaseDate)),
    revisionNumber: revisions.length ? (val(record(revisions[0]).Number)?.trim() ?? null) : null,
    products: new Map(),
    vulnerabilities: [],
    advisoryUrls: new Map(),
    families: new Map(),
  };
  const tree = record(root.ProductTree);
  collectJsonProducts(tree.Branch, doc.products, doc.families!, null);
  collectJsonProducts(tree.FullProductName, doc.products, doc.families!, null);
  for (const n of arr(root.DocumentNotes)) collectAdvisoryUrls(val(n) ?? '', doc.advisoryUrls);

  for (const raw of arr(root.Vulnerability)) {
    const v = record(raw);
    const vuln = emptyVuln();
    vuln.cve = val(v.CVE)?.trim() ?? '';
    vuln.title = val(v.Title)?.trim() ?? '';
    for (const n of arr(v.Notes)) {
      const o = record(n);
      const text = val(n) ?? '';
      vuln.notes.push({ type: typeName(o.Type, NOTE_TYPES), title: val(o.Title) ?? '', text });
      if (vuln.cve) collectAdvisoryUrls(text, doc.advisoryUrls, vuln.cve);
    }
    for (const c of arr(v.CWE)) {
      vuln.cwes.push({ id: (val(record(c).ID) ?? '').trim(), name: (val(c) ?? '').trim() });
    }
    for (const s of arr(v.ProductStatuses)) {
      const o = record(s);
      if (typeName(o.Type, STATUS_TYPES) === 'Known Affected') vuln.knownAffected.push(...strs(o.ProductID));
    }
    for (const t of arr(v.Threats)) {
      const o = record(t);
      vuln.threats.push({
        type: typeName(o.Type, THREAT_TYPES),
        description: (val(o.Description) ?? '').trim(),
        productIds: strs(o.ProductID),
      });
    }
    for (const s of arr(v.CVSSScoreSets)) {
      const o = record(s);
      vuln.scoreSets.push({
        baseScore: num(val(o.BaseScore)),
        temporalScore: num(val(o.TemporalScore)),
        vector: val(o.Vector)?.trim() || null,
        productIds: strs(o.ProductID),
      });
    }
    for (const r of arr(v.Remediations)) {
      const o = record(r);
      vuln.remediations.push({
        type: typeName(o.Type, REMEDIATION_TYPES),
        description: val(o.Description)?.trim() || null,
        url: val(o.URL)?.trim() || null,
        supercedence: val(o.Supercedence)?.trim() || null,
        productIds: strs(o.ProductID),
        subType: val(o.SubType)?.trim() || null,
        fixedBuild: val(o.FixedBuild) || null,
        restartRequired: val(o.RestartRequired)?.trim() || null,
      });
    }
    for (const r of arr(v.RevisionHistory)) {
      const o = record(r);
      vuln.revisions.push({
        number: (val(o.Number) ?? '').trim(),
        date: (val(o.Date) ?? '').trim(),
        description: val(o.Description) ?? '',
      });
    }
    doc.vulnerabilities.push(vuln);
  }
  return doc;
}
