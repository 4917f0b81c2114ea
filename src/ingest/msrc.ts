// MSRC CVRF reader: monthly documents in the XML form (plain or .gz) and in the JSON form the MSRC API
// serves with `Accept: application/json`, plus the `/cvrf/v3.0/updates` index.
// Format reference: shared/docs/windows-engine.md §1 (XML layout §1.2–1.4, JSON enum numbers §1.5).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isRecord, parseFeedJson, record, str, strOrNull } from './json.ts';
import { scanXml, type XmlHandler } from './xml-scan.ts';
import type {
  MsrcDocument,
  MsrcRemediation,
  MsrcRevision,
  MsrcScoreSet,
  MsrcThreat,
  MsrcUpdateEntry,
  MsrcVulnerability,
} from '../domain/windows/msrc-types.ts';
import { CVE_ID_BODY } from '../domain/cve-id.ts';

/** MSRC document dates carry no zone ("2026-07-05T14:46:17"); the /updates index gives the same instant with Z. */
export function msrcDateToIso(s: string | null | undefined): string | null {
  if (!s) return null;
  const t = s.trim();
  if (!t) return null;
  const withZone = /(Z|[+-]\d\d:?\d\d)$/.test(t) ? t : `${t}Z`;
  const d = new Date(withZone);
  if (Number.isNaN(d.getTime())) return null;
  return d.toISOString();
}

const ADVISORY_RE = new RegExp(
  String.raw`https://msrc\.microsoft\.com/update-guide/(?:[a-zA-Z]{2}-[a-zA-Z]{2}/)?vulnerability/(${CVE_ID_BODY})`,
  'g',
);

/** Collect CVE → advisory URL from HTML note text, first link wins. Only links the document states. */
function collectAdvisoryUrls(html: string, into: Map<string, string>, onlyCve?: string): void {
  if (html.indexOf('update-guide') < 0) return;
  ADVISORY_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ADVISORY_RE.exec(html)) !== null) {
    const cve = m[1].toUpperCase();
    if (onlyCve && cve !== onlyCve) continue;
    if (!into.has(cve)) into.set(cve, m[0]);
  }
}

function emptyVuln(): MsrcVulnerability {
  return {
    cve: '',
    title: '',
    notes: [],
    cwes: [],
    knownAffected: [],
    threats: [],
    scoreSets: [],
    remediations: [],
    revisions: [],
  };
}

function num(s: string | null): number | null {
  if (s === null || s.trim() === '') return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}

/**
 * Parse one CVRF XML document. `skipVulnerability` lets a caller drop entries early (e.g. by CVE)
 * without building them; by default everything is kept.
 */
export function parseCvrfXml(xml: string): MsrcDocument {
  const doc: MsrcDocument = {
    id: '',
    title: '',
    initialReleaseDate: null,
    currentReleaseDate: null,
    revisionNumber: null,
    products: new Map(),
    vulnerabilities: [],
    advisoryUrls: new Map(),
    families: new Map(),
  };
  const families = doc.families!;
  const stack: string[] = [];
  /** Open ProductTree branches: the family name for a Product Family branch, null for others. */
  const branches: (string | null)[] = [];
  let buf = '';
  let vuln: MsrcVulnerability | null = null;
  let rem: MsrcRemediation | null = null;
  let threat: MsrcThreat | null = null;
  let score: MsrcScoreSet | null = null;
  let rev: MsrcRevision | null = null;
  let statusType: string | null = null;
  let noteAttrs: Record<string, string> | null = null;
  let productId: string | null = null;
  let cweId: string | null = null;
  let docRevisionSeen = false;
  const vulnNoteUrls = new Map<string, string>();

  const h: XmlHandler = {
    wantAttrs(name) {
      return (
        name === 'FullProductName' ||
        name === 'Branch' ||
        name === 'Remediation' ||
        name === 'Threat' ||
        name === 'Status' ||
        name === 'Note' ||
        name === 'CWE'
      );
    },
    open(name, attrs) {
      stack.push(name);
      buf = '';
      switch (name) {
        case 'Vulnerability':
          vuln = emptyVuln();
          break;
        case 'Remediation':
          if (vuln) {
            rem = {
              type: attrs?.Type ?? '',
              description: null,
              url: null,
              supercedence: null,
              productIds: [],
              subType: null,
              fixedBuild: null,
              restartRequired: null,
            };
          }
          break;
        case 'Threat':
          if (vuln) threat = { type: attrs?.Type ?? '', description: '', productIds: [] };
          break;
        case 'ScoreSet':
          if (vuln) score = { baseScore: null, temporalScore: null, vector: null, productIds: [] };
          break;
        case 'Revision':
          rev = { number: '', date: '', description: '' };
          break;
        case 'Status':
          statusType = attrs?.Type ?? '';
          break;
        case 'Note':
          noteAttrs = attrs ?? {};
          break;
        case 'FullProductName':
          productId = attrs?.ProductID ?? null;
          break;
        case 'Branch':
          branches.push(attrs?.Type === 'Product Family' ? (attrs.Name ?? '').trim() || null : null);
          break;
        case 'CWE':
          cweId = attrs?.ID ?? '';
          break;
        default:
          break;
      }
    },
    text(value) {
      buf += value;
    },
    close(name) {
      stack.pop();
      const parent = stack[stack.length - 1];
      const t = buf;
      buf = '';
      if (vuln) {
        switch (name) {
          case 'Vulnerability':
            doc.vulnerabilities.push(vuln);
            for (const [cve, url] of vulnNoteUrls) if (!doc.advisoryUrls.has(cve)) doc.advisoryUrls.set(cve, url);
            vulnNoteUrls.clear();
            vuln = null;
            return;
          case 'Title':
            if (parent === 'Vulnerability') vuln.title = t.trim();
            return;
          case 'CVE':
            vuln.cve = t.trim();
            return;
          case 'CWE':
            vuln.cwes.push({ id: (cweId ?? '').trim(), name: t.trim() });
            cweId = null;
            return;
          case 'Note':
            if (parent === 'Notes') {
              vuln.notes.push({ type: noteAttrs?.Type ?? '', title: noteAttrs?.Title ?? '', text: t });
              if (vuln.cve) collectAdvisoryUrls(t, vulnNoteUrls, vuln.cve);
            }
            noteAttrs = null;
            return;
          case 'Status':
            statusType = null;
            return;
          case 'ProductID': {
            const pid = t.trim();
            if (rem) rem.productIds.push(pid);
            else if (threat) threat.productIds.push(pid);
            else if (score) score.productIds.push(pid);
            else if (statusType === 'Known Affected') vuln.knownAffected.push(pid);
            return;
          }
          case 'Threat':
            if (threat) vuln.threats.push(threat);
            threat = null;
            return;
          case 'ScoreSet':
            if (score) vuln.scoreSets.push(score);
            score = null;
            return;
          case 'BaseScore':
            if (score) score.baseScore = num(t);
            return;
          case 'TemporalScore':
            if (score) score.temporalScore = num(t);
            return;
          case 'Vector':
            if (score) score.vector = t.trim() || null;
            return;
          case 'Remediation':
            if (rem) vuln.remediations.push(rem);
            rem = null;
            return;
          case 'Description':
            if (rem) rem.description = t.trim() || null;
            else if (threat) threat.description = t.trim();
            else if (rev) rev.description = t;
            return;
          case 'URL':
            if (rem) rem.url = t.trim() || null;
            return;
          case 'Supercedence':
            if (rem) rem.supercedence = t.trim() || null;
            return;
          case 'SubType':
            if (rem) rem.subType = t.trim() || null;
            return;
          case 'FixedBuild':
            if (rem) rem.fixedBuild = t || null;
            return;
          case 'RestartRequired':
            if (rem) rem.restartRequired = t.trim() || null;
            return;
          case 'Number':
            if (rev) rev.number = t.trim();
            return;
          case 'Date':
            if (rev) rev.date = t.trim();
            return;
          case 'Revision':
            if (rev) vuln.revisions.push(rev);
            rev = null;
            return;
          default:
            return;
        }
      }
      switch (name) {
        case 'DocumentTitle':
          doc.title = t.trim();
          return;
        case 'ID':
          if (parent === 'Identification') doc.id = t.trim();
          return;
        case 'InitialReleaseDate':
          if (parent === 'DocumentTracking') doc.initialReleaseDate = msrcDateToIso(t);
          return;
        case 'CurrentReleaseDate':
          if (parent === 'DocumentTracking') doc.currentReleaseDate = msrcDateToIso(t);
          return;
        case 'Number':
          if (rev && !docRevisionSeen) doc.revisionNumber = t.trim();
          return;
        case 'Revision':
          docRevisionSeen = true;
          rev = null;
          return;
        case 'Note':
          collectAdvisoryUrls(t, doc.advisoryUrls);
          noteAttrs = null;
          return;
        case 'FullProductName':
          if (productId && !doc.products.has(productId)) {
            doc.products.set(productId, t.trim());
            const family = branches.findLast((b) => b !== null);
            if (family) families.set(productId, family);
          }
          productId = null;
          return;
        case 'Branch':
          branches.pop();
          return;
        default:
          return;
      }
    },
  };
  scanXml(xml, h);
  if (!doc.id) throw new Error('not an MSRC CVRF document: no DocumentTracking/Identification/ID');
  return doc;
}

// ---- JSON form -------------------------------------------------------------------------------------
// MSRC JSON wraps strings as {"Value": ...} and turns XML Type strings into integers (§1.5).

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

// ---- /updates index ----------------------------------------------------------------------------------

export function parseUpdatesIndex(input: unknown): MsrcUpdateEntry[] {
  const root = record(input);
  if (!Array.isArray(root.value)) throw new Error('not an MSRC /updates index: no value[]');
  return root.value
    .map((x: unknown) => record(x))
    .map((e) => ({
      id: String(e.ID),
      alias: String(e.Alias ?? e.ID),
      title: str(e.DocumentTitle),
      severity: strOrNull(e.Severity),
      initialReleaseDate: msrcDateToIso(String(e.InitialReleaseDate)) ?? '',
      currentReleaseDate: msrcDateToIso(String(e.CurrentReleaseDate)) ?? '',
      cvrfUrl: str(e.CvrfUrl),
    }));
}

// ---- files -----------------------------------------------------------------------------------------

/** Decide the form of a buffer (gzip or not, XML or JSON) by its bytes, not its name. */
export function parseMsrcBuffer(buf: Buffer): MsrcDocument {
  const raw = buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
  const text = raw.toString('utf8');
  let k = 0;
  while (k < text.length && /[\s\ufeff]/.test(text[k])) k++;
  if (text[k] === '{') return parseCvrfJson(parseFeedJson(text));
  if (text[k] === '<') return parseCvrfXml(text);
  throw new Error('neither XML nor JSON');
}

export function readMsrcFile(path: string): MsrcDocument {
  return parseMsrcBuffer(readFileSync(path));
}

const MSRC_FILE_RE = /\.(xml|json)(\.gz)?$/i;

/** True when a file looks like an MSRC CVRF document (cheap sniff of the first bytes). */
export function looksLikeMsrc(buf: Buffer): boolean {
  const raw = buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
  const head = raw.subarray(0, 4096).toString('utf8');
  return (
    head.includes('cvrfdoc') ||
    head.includes('"DocumentTracking"') ||
    (head.includes('"DocumentTitle"') && head.includes('"Value"'))
  );
}

/** Read every MSRC document of a directory (not recursive), one at a time (bounded memory). */
export function* readMsrcDirectory(dir: string): Generator<{ file: string; doc: MsrcDocument }> {
  const names = readdirSync(dir)
    .filter((n) => MSRC_FILE_RE.test(n))
    .sort();
  for (const name of names) {
    const buf = readFileSync(join(dir, name));
    if (!looksLikeMsrc(buf)) continue;
    yield { file: name, doc: parseMsrcBuffer(buf) };
  }
}

// ---- stored form --------------------------------------------------------------------------------------

/** Serialise a (subset) document for storage: JSON with the maps as pairs, gzip. */
export function encodeMsrcPayload(doc: MsrcDocument): Buffer {
  return gzipSync(
    JSON.stringify({
      ...doc,
      products: [...doc.products],
      advisoryUrls: [...doc.advisoryUrls],
      families: doc.families ? [...doc.families] : undefined,
    }),
  );
}

export function decodeMsrcPayload(buf: Buffer): MsrcDocument {
  type Entries = [string, string][];
  const o = JSON.parse(gunzipSync(buf).toString('utf8')) as Omit<
    MsrcDocument,
    'products' | 'advisoryUrls' | 'families'
  > & { products: Entries; advisoryUrls: Entries; families?: Entries };
  return {
    ...o,
    products: new Map(o.products),
    advisoryUrls: new Map(o.advisoryUrls),
    families: o.families ? new Map(o.families) : undefined,
  };
}
