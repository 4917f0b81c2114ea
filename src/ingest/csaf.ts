// CISA ICS advisories in CSAF 2.0 (document.csaf_version "2.0"): one advisory yields one record per named
// CVE, keyed by advisory id. Files are single documents (.json) or the repackaged one-document-per-line
// corpus (.jsonl.gz).
// The product tree is read by csaf-product-tree.ts, the product_status lists by csaf-status.ts.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type {
  AdvisoryFix,
  AffectedProduct,
  CsafAdvisoryFacts,
  CvssMetric,
  CvssVersion,
  CveSourceRecord,
  IngestItem,
  SourceReference,
} from './types.ts';
import { FeedFormatError } from './types.ts';
import { arr, cvssScore, jsonDocuments, Loose, record, str } from './json.ts';
import { productLeaves, type Leaf } from './csaf-product-tree.ts';
import { csafRanges, vendorStatements } from './csaf-status.ts';
import { isCveId } from '../domain/cve-id.ts';

/** A JSON object as read: each member checked before use. */
type Entry = Record<string, unknown>;

/**
 * What makes a CSAF 2.0 document: `document.tracking.id` as text (and `document.csaf_version` reading "2.0", checked
 * beside). The other members are read one by one, each when it has its type.
 */
const CsafDocument = Compile(
  Type.Object({
    document: Type.Object({
      csaf_version: Loose,
      tracking: Type.Object({ id: Type.String(), initial_release_date: Loose, current_release_date: Loose }),
      title: Loose,
      references: Loose,
    }),
    product_tree: Loose,
    vulnerabilities: Loose,
  }),
);

const CVSS_VERSIONS: readonly CvssVersion[] = ['2.0', '3.0', '3.1', '4.0'];
const isCvssVersion = (s: string): s is CvssVersion => CVSS_VERSIONS.some((v) => v === s);

/** A product tree leaf that names its vendor. */
const vendored = (l: Leaf | undefined): l is Leaf & { vendor: string } => !!l && !!l.vendor;

const VERSION_TOKEN = String.raw`(?:[A-Za-z]{1,4}-)?[Vv]?\d+(?:[._]\w+)+(?:\s+(?:SP|Upd|HF|Update)\s?\d+\w*)*|[Vv]\d+\w*(?:\s+(?:SP|Upd|HF)\s?\d+\w*)*`;
const TO_VERSION = new RegExp(
  String.raw`\b(?:update|upgrade|migrate)\b[^.:\n]{0,80}?\bto\b[^\n]{0,60}?(${VERSION_TOKEN})`,
  'i',
);
const VERSION_WORD = new RegExp(String.raw`\bversion\s*\(?(${VERSION_TOKEN})`, 'i');

/**
 * The fixed version a vendor_fix remediation states ("Update to V3.1.4 or later version",
 * "Delta recommends users update to DIAEnergie v1.10.01.009", "Version 8.2 of … includes fixes").
 * Null when the text names no version; nothing is guessed.
 */
export function extractFixedVersion(details: string): string | null {
  const text = details.replace(/\s+/g, ' ');
  const m =
    TO_VERSION.exec(text) ??
    (/\b(released|available|includes|fix|update|upgrade)/i.test(text) ? VERSION_WORD.exec(text) : null);
  if (!m) return null;
  return m[1].replace(/[.,;)]+$/, '').trim();
}

function pageUrl(doc: Entry): { url: string | null; json: string | null } {
  let url: string | null = null;
  let json: string | null = null;
  for (const r of arr(record(doc.document).references).map(record)) {
    if (r.category !== 'self' || typeof r.url !== 'string') continue;
    if (/\.json$/i.test(r.url)) json ??= r.url;
    // The advisory's web page on cisa.gov (or its older us-cert address) as the document states it.
    else if (/cisa\.gov\//i.test(r.url) && !url) url = r.url;
  }
  return { url, json };
}

/** Pages the national advisory itself stands for, or that are no advisory (CVSS calculators, record pages). */
const NOT_A_SOURCE_PAGE =
  /^https?:\/\/(?:[^/]*\.)?(?:cisa\.gov|us-cert\.gov|first\.org|nvd\.nist\.gov|cve\.org|cve\.mitre\.org)(?:[/:?#]|$)/i;

/**
 * The pages an advisory names besides itself: its document references (the vendor's own advisory, e.g. Siemens'
 * SSA on cert-portal.siemens.com for a republished Siemens advisory) and the vulnerability's references. The
 * reference rules decide which are the vendor's advisory (references.ts, spec §2.5).
 */
function referencesOf(doc: Entry, v: Entry): SourceReference[] {
  const out: SourceReference[] = [];
  const seen = new Set<string>();
  for (const r of [...arr(record(doc.document).references), ...arr(v.references)].map(record)) {
    const url = str(r.url).trim();
    if (!/^https?:\/\//i.test(url) || NOT_A_SOURCE_PAGE.test(url) || /\.json$/i.test(url) || seen.has(url)) continue;
    seen.add(url);
    out.push({ url, tags: [], provided_by: 'csaf' });
  }
  return out;
}

function scoresOf(v: Entry): CvssMetric[] {
  const out: CvssMetric[] = [];
  for (const s of arr(v.scores).map(record)) {
    for (const key of ['cvss_v3', 'cvss_v2', 'cvss_v4']) {
      const c = record(s[key]);
      if (typeof c.vectorString !== 'string') continue;
      const stated = str(c.version);
      const version: CvssVersion = isCvssVersion(stated)
        ? stated
        : key === 'cvss_v2'
          ? '2.0'
          : key === 'cvss_v4'
            ? '4.0'
            : '3.1';
      out.push({ version, vector: c.vectorString, score: cvssScore(c.baseScore), scored_by: 'csaf', type: null });
    }
  }
  // One advisory often scores the same vector once per product group: keep each vector once.
  const seen = new Set<string>();
  return out.filter((m) => (seen.has(m.vector) ? false : (seen.add(m.vector), true)));
}

function uniq<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The largest product tree whose whole is taken for a vulnerability naming no product of it (csafRecords). */
export const CSAF_FALLBACK_MAX_LEAVES = 200;

export function csafRecords(doc: unknown): CveSourceRecord[] {
  if (!CsafDocument.Check(doc) || String(doc.document.csaf_version) !== '2.0') {
    throw new FeedFormatError('not a CSAF 2.0 document (document.csaf_version / tracking.id missing)');
  }
  const d = doc.document;
  const leaves = productLeaves(record(doc.product_tree));
  const { url, json } = pageUrl(doc);
  const advisoryId = d.tracking.id.trim();
  const released = Date.parse(str(d.tracking.initial_release_date));
  const published = Number.isNaN(released) ? null : new Date(released).toISOString();
  // The advisory's revision (tracking.current_release_date): an older revision never replaces a newer stored one
  // (store/ingest.ts replacesSource; a stale mirror or a re-read old file changes nothing).
  const current = Date.parse(str(d.tracking.current_release_date));
  const revision = Number.isNaN(current) ? published : new Date(current).toISOString();
  const out: CveSourceRecord[] = [];
  for (const v of arr(doc.vulnerabilities).map(record)) {
    if (typeof v.cve !== 'string' || !isCveId(v.cve.trim())) continue;
    const cve = v.cve.trim();
    const status = record(v.product_status);
    const affectedIds = [...arr(status.known_affected), ...arr(status.first_affected), ...arr(status.last_affected)];
    const ids = affectedIds.length ? affectedIds : arr(v.scores).flatMap((s) => arr(record(s).products));
    let named = ids.map((id) => (typeof id === 'string' ? leaves.get(id) : undefined)).filter(vendored);
    // Some advisories list product ids that are not in their product tree: fall back to the whole tree, when it is
    // small (ICSA-24-235-03, the one CISA advisory of the snapshot that needs it, has 108 leaves). A large tree is
    // not one product line: giving all of it to every vulnerability took gigabytes for one crafted advisory.
    if (!named.length && leaves.size <= CSAF_FALLBACK_MAX_LEAVES) named = [...leaves.values()].filter(vendored);
    const affected: AffectedProduct[] = uniq(
      named.map((l) => ({
        vendor: l.vendor,
        product: l.product,
        origin: 'csaf' as const,
        version: l.version ?? l.range,
      })),
      (a) => `${a.vendor}\u0000${a.product}\u0000${a.version}`,
    );
    const fixes: AdvisoryFix[] = [];
    for (const id of arr(status.fixed)) {
      const l = typeof id === 'string' ? leaves.get(id) : undefined;
      if (l?.product && l.version)
        fixes.push({ product: l.product, version: l.version, origin: 'product_status.fixed' });
    }
    const vendorFixes: CsafAdvisoryFacts['vendor_fixes'] = [];
    const categories = new Set<string>();
    for (const r of arr(v.remediations).map(record)) {
      const cat = str(r.category);
      if (cat !== 'vendor_fix') {
        if (cat) categories.add(cat);
        continue;
      }
      const details = str(r.details).trim();
      const productNames: string[] = [];
      for (const id of arr(r.product_ids)) {
        const name = typeof id === 'string' ? leaves.get(id)?.product : undefined;
        if (typeof name === 'string' && !productNames.includes(name)) productNames.push(name);
      }
      const products = productNames;
      vendorFixes.push({ details, url: typeof r.url === 'string' ? r.url : null, products });
      const version = extractFixedVersion(details);
      if (version) for (const p of products) fixes.push({ product: p, version, origin: 'vendor_fix' });
    }
    // The vulnerability's text: its summary notes (joined), else its description, else its details note.
    const notesOf = (cat: string) =>
      arr(v.notes)
        .map(record)
        .filter((n) => n.category === cat && typeof n.text === 'string')
        .map((n) => str(n.text).trim())
        .filter(Boolean);
    const texts = [notesOf('summary'), notesOf('description'), notesOf('details')].find((x) => x.length) ?? [];
    const summary = texts.length ? texts.join('\n\n') : null;
    out.push({
      source: 'csaf',
      source_key: advisoryId,
      cve_id: cve,
      description: summary ? summary.trim() || null : null,
      title: typeof v.title === 'string' && v.title.trim() ? v.title.trim() : null,
      published: null,
      modified: revision,
      cvss: scoresOf(v),
      cwes: /^CWE-\d+$/.test(str(record(v.cwe).id)) ? [Number(str(record(v.cwe).id).slice(4))] : [],
      affected,
      references: referencesOf(doc, v),
      assigner: null,
      status: null,
      advisory: {
        advisory_id: advisoryId,
        title: str(d.title).trim(),
        url,
        json_url: json,
        published,
        fixes: uniq(fixes, (f) => `${f.product}\u0000${f.version}`),
        vendor_fixes: vendorFixes,
        remediation_categories: [...categories].sort(),
      },
      ranges: csafRanges(status, leaves, fixes),
    });
    const stated = vendorStatements(v, status, leaves);
    if (stated.length) out[out.length - 1].vendor_statements = stated;
  }
  return out;
}

function* itemsOf(doc: unknown): Generator<IngestItem> {
  for (const record of csafRecords(doc)) yield { kind: 'cve', record };
}

export async function* readCsaf(path: string, layout: 'document' | 'jsonl'): AsyncGenerator<IngestItem> {
  for await (const { doc } of jsonDocuments(path, layout, layout === 'document' ? 'CSAF JSON' : 'CSAF document'))
    yield* itemsOf(doc);
}
