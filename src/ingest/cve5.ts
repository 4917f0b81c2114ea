// CVE Record Format 5.x (the CVE Program's own records: cvelistV5, CVE Services, CISA Vulnrichment): one record per
// file (`CVE-YYYY-N.json`) or JSON Lines (one record per line, as the shared Vulnrichment corpus), `.gz` transparent.
// One record yields one source record `cve5` built from the numbering authority's container (`containers.cna`) and
// the Authorized Data Publishers' containers (`containers.adp[]`: CISA-ADP's SSVC, CVSS, CWE, CPEs and KEV marker;
// the "CVE Program Container" of transferred references). docs/cve5.md describes the mapping.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type {
  AffectedProduct,
  CvssMetric,
  CvssVersion,
  CveSourceRecord,
  IngestItem,
  SourceReference,
} from './types.ts';
import { FeedFormatError } from './types.ts';
import { arr, cvssScore, jsonDocuments, Loose, record, str, strings } from './json.ts';
import { isPlaceholderDescription, nvdTime } from './nvd.ts';
import { productOf, rangesOfAffected } from './cve5-affected.ts';
import { isCveId } from '../domain/cve-id.ts';
import type { AffectedRange } from '../domain/ranges.ts';
import type { SsvcExploitation } from '../domain/records.ts';

/**
 * What makes a CVE Record 5: `dataType` CVE_RECORD and `cveMetadata.cveId` as text. The metadata's other members and
 * the containers are read one by one, each when it has its type.
 */
const Cve5Record = Compile(
  Type.Object({
    dataType: Type.Literal('CVE_RECORD'),
    cveMetadata: Type.Object({
      cveId: Type.String(),
      assignerShortName: Loose,
      state: Loose,
      datePublished: Loose,
      dateReserved: Loose,
      dateUpdated: Loose,
    }),
    containers: Loose,
  }),
);

/** CVE 5 metric keys → CVSS version, newest first. */
const METRIC_KEYS: [string, CvssVersion][] = [
  ['cvssV4_0', '4.0'],
  ['cvssV3_1', '3.1'],
  ['cvssV3_0', '3.0'],
  ['cvssV2_0', '2.0'],
];

/**
 * CVE 5 reference tags (schema `tags` enum) in the NVD spelling the reference, patch and exploit rules read.
 * `x_`-prefixed tags (x_refsource_*, x_transferred) are the producers' own and are kept as they are.
 */
const TAGS: Record<string, string> = {
  'vendor-advisory': 'Vendor Advisory',
  patch: 'Patch',
  exploit: 'Exploit',
  'third-party-advisory': 'Third Party Advisory',
  'mailing-list': 'Mailing List',
  'issue-tracking': 'Issue Tracking',
  'release-notes': 'Release Notes',
  mitigation: 'Mitigation',
  'vdb-entry': 'VDB Entry',
  'technical-description': 'Technical Description',
  'permissions-required': 'Permissions Required',
  product: 'Product',
  'broken-link': 'Broken Link',
  'government-resource': 'US Government Resource',
  'media-coverage': 'Press/Media Coverage',
  'x_research-advisory': 'Third Party Advisory',
};

/** The provider label of a numbering authority's own references (references.ts reads it for spec §2.5). */
export const cnaProvider = (shortName: string) => `cna:${shortName}`;

function tagsOf(raw: unknown): string[] {
  const out: string[] = [];
  for (const t of strings(raw)) {
    const mapped = TAGS[t] ?? t;
    if (!out.includes(mapped)) out.push(mapped);
  }
  return out;
}

function referencesOf(refs: unknown, providedBy: string): SourceReference[] {
  const out: SourceReference[] = [];
  for (const r of arr(refs).map(record))
    if (typeof r.url === 'string' && r.url.trim() !== '')
      out.push({ url: r.url.trim(), tags: tagsOf(r.tags), provided_by: providedBy });
  return out;
}

function metricsOf(metrics: unknown, scoredBy: string | null, container: 'CNA' | 'ADP'): CvssMetric[] {
  const out: CvssMetric[] = [];
  for (const [key, version] of METRIC_KEYS) {
    for (const m of arr(metrics).map(record)) {
      const c = record(m[key]);
      if (typeof c.vectorString !== 'string' || c.vectorString.trim() === '') continue;
      out.push({
        version,
        vector: c.vectorString.trim(),
        score: cvssScore(c.baseScore),
        scored_by: scoredBy,
        type: container,
      });
    }
  }
  return out;
}

function cwesOf(problemTypes: unknown, into: number[]): void {
  for (const p of arr(problemTypes).map(record)) {
    for (const d of arr(p.descriptions).map(record)) {
      const m = /^CWE-(\d+)$/i.exec(str(d.cweId).trim()) ?? /^CWE-(\d+)\b/.exec(str(d.description).trim());
      if (m && !into.includes(Number(m[1]))) into.push(Number(m[1]));
    }
  }
}

/** SSVC Exploitation of an ADP container's `metrics[].other` (type ssvc); spelling varies (poc, PoC, Active). */
export function ssvcExploitation(metrics: unknown): SsvcExploitation | null {
  for (const m of arr(metrics).map(record)) {
    const other = record(m.other);
    if (str(other.type).toLowerCase() !== 'ssvc') continue;
    for (const opt of arr(record(other.content).options).map(record)) {
      const v = str(opt.Exploitation ?? opt.exploitation)
        .trim()
        .toLowerCase();
      if (v === 'none' || v === 'poc' || v === 'active') return v;
    }
  }
  return null;
}

function kevDateOf(metrics: unknown): string | null {
  for (const m of arr(metrics).map(record)) {
    const other = record(m.other);
    if (str(other.type).toLowerCase() !== 'kev') continue;
    const d = str(record(other.content).dateAdded).trim();
    if (/^\d{4}-\d{2}-\d{2}$/.test(d)) return d;
  }
  return null;
}

/** One CVE Record 5 (parsed JSON) → the `cve5` source record. */
export function cve5RecordFrom(doc: unknown): CveSourceRecord {
  if (!Cve5Record.Check(doc) || !isCveId(doc.cveMetadata.cveId.trim())) {
    throw new FeedFormatError('not a CVE Record 5 (dataType CVE_RECORD with cveMetadata.cveId)');
  }
  const meta = doc.cveMetadata;
  const cveId = meta.cveId.trim();
  const shortName = str(meta.assignerShortName).trim() || null;
  const published = nvdTime(meta.datePublished) ?? nvdTime(meta.dateReserved);
  const modified = nvdTime(meta.dateUpdated) ?? published;
  // A rejected record withdraws what the CVE Program said before: an empty record (like NVD's Rejected), so the
  // CVE leaves the corpus unless another source still describes it.
  if (str(meta.state).toUpperCase() === 'REJECTED') {
    return {
      source: 'cve5',
      source_key: '',
      cve_id: cveId,
      description: null,
      title: null,
      published,
      modified,
      cvss: [],
      cwes: [],
      affected: [],
      references: [],
      assigner: shortName,
      status: 'Rejected',
      cve5: { assigner_short_name: shortName, ssvc_exploitation: null, kev_date_added: null },
      ranges: [],
    };
  }
  const containers = record(doc.containers);
  const cna = record(containers.cna);
  const adps = arr(containers.adp).map(record);
  const descriptions = arr(cna.descriptions).map(record);
  const en = descriptions.find((d) => /^en\b/i.test(str(d.lang))) ?? descriptions[0];
  const text = str(en?.value).trim();
  const title = str(cna.title).trim();

  const cvss = metricsOf(cna.metrics, shortName, 'CNA');
  const cwes: number[] = [];
  cwesOf(cna.problemTypes, cwes);
  const affected: AffectedProduct[] = [];
  const ranges: AffectedRange[] = [];
  for (const a of arr(cna.affected).map(record)) {
    const p = productOf(a, 'cna');
    if (p) affected.push(p);
    ranges.push(...rangesOfAffected(a));
  }
  const references = referencesOf(cna.references, cnaProvider(shortName ?? 'unknown'));
  let ssvc: SsvcExploitation | null = null;
  let kevDate: string | null = null;
  for (const adp of adps) {
    const provider = str(record(adp.providerMetadata).shortName).trim() || 'ADP';
    cvss.push(...metricsOf(adp.metrics, provider, 'ADP'));
    cwesOf(adp.problemTypes, cwes);
    for (const a of arr(adp.affected).map(record)) {
      const p = productOf(a, 'cpe');
      if (p) affected.push(p);
      ranges.push(...rangesOfAffected(a));
    }
    references.push(...referencesOf(adp.references, `adp:${provider}`));
    ssvc ??= ssvcExploitation(adp.metrics);
    kevDate ??= kevDateOf(adp.metrics);
  }
  return {
    source: 'cve5',
    source_key: '',
    cve_id: cveId,
    description: text && !isPlaceholderDescription(text) ? text : null,
    title: title || null,
    published,
    modified,
    cvss,
    cwes,
    affected,
    references,
    assigner: shortName,
    status: str(meta.state) || null,
    cve5: { assigner_short_name: shortName, ssvc_exploitation: ssvc, kev_date_added: kevDate },
    ranges,
  };
}

/** The items of one parsed CVE record (`where` names it in errors). */
export function* cve5Items(doc: unknown, where: string): Generator<IngestItem> {
  try {
    yield { kind: 'cve', record: cve5RecordFrom(doc) };
  } catch (err) {
    if (err instanceof FeedFormatError) throw new FeedFormatError(`${where}: ${err.message}`);
    throw err;
  }
}

export async function* readCve5(path: string, layout: 'document' | 'jsonl'): AsyncGenerator<IngestItem> {
  for await (const { doc, where } of jsonDocuments(
    path,
    layout,
    layout === 'document' ? 'CVE Record JSON' : 'CVE record',
  ))
    yield* cve5Items(doc, where);
}
