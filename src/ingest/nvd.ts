// NVD CVE API 2.0 JSON: single `cve` objects (one file per CVE, as mirrored) and API response pages
// (`{resultsPerPage, startIndex, totalResults, format: "NVD_CVE", version: "2.0", vulnerabilities: [{cve}]}`).
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { readText } from './io.ts';
import type {
  AffectedProduct,
  CvssMetric,
  CvssVersion,
  CveSourceRecord,
  IngestItem,
  SourceReference,
} from './types.ts';
import { FeedFormatError } from './types.ts';
import { arr, cvssScore, Loose, parseFeedJson, record, str, strings } from './json.ts';
import { isCveId } from '../domain/cve-id.ts';
import type { AffectedRange } from '../domain/ranges.ts';
import { cpeVersion, parseCpe as parseCpeName } from '../domain/cpe-name.ts';
import { errorMessage } from '../lib/errors.ts';

/** An API 2.0 `cve` object: its id as text; the other members are read one by one, each when it has its type. */
const NvdCve = Compile(
  Type.Object({
    id: Type.String(),
    vulnStatus: Loose,
    published: Loose,
    lastModified: Loose,
    sourceIdentifier: Loose,
    descriptions: Loose,
    configurations: Loose,
    affected: Loose,
    references: Loose,
    metrics: Loose,
    weaknesses: Loose,
  }),
);

/** An API 2.0 response page: its `vulnerabilities[]` (each `{cve}`) and the page facts. */
const NvdPage = Compile(
  Type.Object({
    vulnerabilities: Type.Array(Type.Unknown()),
    format: Loose,
    resultsPerPage: Loose,
    version: Loose,
    timestamp: Loose,
  }),
);

/** A configuration's `cpeMatch` entry: its CPE name as text; the bounds are taken when they are non-empty text. */
const CpeMatchSchema = Type.Object({
  criteria: Type.String(),
  vulnerable: Loose,
  versionStartIncluding: Loose,
  versionStartExcluding: Loose,
  versionEndIncluding: Loose,
  versionEndExcluding: Loose,
});
type CpeMatch = Static<typeof CpeMatchSchema>;
const CpeMatch = Compile(CpeMatchSchema);

const METRIC_KEYS: [string, CvssVersion][] = [
  ['cvssMetricV40', '4.0'],
  ['cvssMetricV31', '3.1'],
  ['cvssMetricV30', '3.0'],
  ['cvssMetricV2', '2.0'],
];

/** NVD timestamps carry no zone and are UTC. */
export function nvdTime(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const withZone = /[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`;
  const t = Date.parse(withZone);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Descriptions that are unfilled CNA templates ("[PROBLEMTYPE] in [VENDOR] …") are not descriptions. */
export function isPlaceholderDescription(text: string): boolean {
  const t = text.trim();
  if (t === '') return true;
  if (/^\*\*\s*(REJECT|RESERVED)\s*\*\*/i.test(t)) return true;
  const tokens = t.match(/\[[A-Z_]+\]/g) ?? [];
  return tokens.length >= 2;
}

/** Split a CPE 2.3 formatted string on unescaped colons and unescape the components. */
export function parseCpe(criteria: string): { part: string; vendor: string; product: string; version: string } | null {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < criteria.length; i++) {
    const c = criteria[i];
    if (c === '\\' && i + 1 < criteria.length) {
      cur += criteria[i + 1];
      i++;
    } else if (c === ':') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  if (parts.length < 6 || parts[0] !== 'cpe' || parts[1] !== '2.3') return null;
  return { part: parts[2], vendor: parts[3], product: parts[4], version: parts[5] };
}

function cpeVersionText(m: CpeMatch, cpeVersion: string): string | null {
  const bits: string[] = [];
  const [startIncl, startExcl] = [str(m.versionStartIncluding), str(m.versionStartExcluding)];
  const [endIncl, endExcl] = [str(m.versionEndIncluding), str(m.versionEndExcluding)];
  if (startIncl) bits.push(`>=${startIncl}`);
  if (startExcl) bits.push(`>${startExcl}`);
  if (endIncl) bits.push(`<=${endIncl}`);
  if (endExcl) bits.push(`<${endExcl}`);
  if (bits.length) return bits.join(' ');
  return cpeVersion && cpeVersion !== '*' && cpeVersion !== '-' ? cpeVersion : null;
}

function collectCpe(nodes: unknown, out: AffectedProduct[], depth = 0): void {
  if (depth > 8) return;
  for (const node of arr(nodes).map(record)) {
    for (const m of arr(node.cpeMatch)) {
      if (!CpeMatch.Check(m) || m.vulnerable !== true) continue;
      const cpe = parseCpe(m.criteria);
      if (!cpe || cpe.vendor === '*' || cpe.vendor === '-') continue;
      const part = cpe.part === 'a' || cpe.part === 'o' || cpe.part === 'h' ? cpe.part : null;
      out.push({
        vendor: cpe.vendor,
        product: cpe.product && cpe.product !== '*' ? cpe.product : null,
        origin: 'cpe',
        cpe_part: part,
        version: cpeVersionText(m, cpe.version),
      });
    }
    if (node.nodes) collectCpe(node.nodes, out, depth + 1);
  }
}

function metricsOf(metrics: unknown): CvssMetric[] {
  const out: CvssMetric[] = [];
  if (!metrics) return out;
  for (const [key, version] of METRIC_KEYS) {
    for (const m of arr(record(metrics)[key]).map(record)) {
      const data = record(m.cvssData);
      if (typeof data.vectorString !== 'string') continue;
      out.push({
        version,
        vector: data.vectorString,
        score: cvssScore(data.baseScore),
        scored_by: typeof m.source === 'string' ? m.source : null,
        type: typeof m.type === 'string' ? m.type : null,
      });
    }
  }
  return out;
}

/** CWE ids from `weaknesses`; the pseudo-ids NVD-CWE-noinfo / NVD-CWE-Other are not CWEs and are dropped. */
function cwesOf(weaknesses: unknown): number[] {
  const ids = new Set<number>();
  for (const w of arr(weaknesses).map(record)) {
    for (const d of arr(w.description).map(record)) {
      const m = /^CWE-(\d+)$/.exec(str(d.value).trim());
      if (m) ids.add(Number(m[1]));
    }
  }
  return [...ids];
}

/**
 * One API 2.0 `cve` object → a source record. A Rejected record becomes an empty NVD record (no description,
 * metrics, products or references): it replaces what NVD said before, so a CVE rejected after import leaves
 * the corpus unless another source still describes it.
 */
export function nvdRecordFromCve(cve: unknown): CveSourceRecord {
  if (!NvdCve.Check(cve) || !isCveId(cve.id)) {
    throw new FeedFormatError('NVD record without a valid `id`');
  }
  if (cve.vulnStatus === 'Rejected') {
    return {
      source: 'nvd',
      source_key: '',
      cve_id: cve.id,
      description: null,
      title: null,
      published: nvdTime(cve.published),
      modified: nvdTime(cve.lastModified),
      cvss: [],
      cwes: [],
      affected: [],
      references: [],
      assigner: typeof cve.sourceIdentifier === 'string' ? cve.sourceIdentifier : null,
      status: 'Rejected',
    };
  }
  const descriptions = arr(cve.descriptions).map(record);
  const en = descriptions.find((d) => d.lang === 'en') ?? descriptions[0];
  const text = str(en?.value).trim();
  const affected: AffectedProduct[] = [];
  for (const cfg of arr(cve.configurations).map(record)) collectCpe(cfg.nodes, affected);
  // The CNA's own `affected` block (present on some records) names vendor and product in its words.
  for (const block of arr(cve.affected).map(record)) {
    for (const a of arr(block.affectedData).map(record)) {
      if (typeof a.vendor === 'string' && a.vendor.trim() && a.vendor !== 'n/a') {
        affected.push({ vendor: a.vendor, product: typeof a.product === 'string' ? a.product : null, origin: 'cna' });
      }
    }
  }
  const references: SourceReference[] = [];
  for (const r of arr(cve.references).map(record))
    if (typeof r.url === 'string')
      references.push({ url: r.url, tags: strings(r.tags), provided_by: str(r.source) || 'nvd' });
  return {
    source: 'nvd',
    source_key: '',
    cve_id: cve.id,
    description: text && !isPlaceholderDescription(text) ? text : null,
    title: null,
    published: nvdTime(cve.published),
    modified: nvdTime(cve.lastModified),
    cvss: metricsOf(cve.metrics),
    cwes: cwesOf(cve.weaknesses),
    affected,
    references,
    assigner: typeof cve.sourceIdentifier === 'string' ? cve.sourceIdentifier : null,
    status: typeof cve.vulnStatus === 'string' ? cve.vulnStatus : null,
    ranges: rangesFromConfigurations(cve.configurations),
  };
}

/** Items of a parsed NVD document: either one `cve` object or an API 2.0 page. */
export function* nvdItemsFromJson(doc: unknown): Generator<IngestItem> {
  if (NvdPage.Check(doc) && (doc.format === 'NVD_CVE' || 'resultsPerPage' in doc)) {
    yield {
      kind: 'meta',
      meta: {
        feed: 'nvd-page',
        version: typeof doc.version === 'string' ? doc.version : null,
        date: nvdTime(doc.timestamp),
        declared_count: doc.vulnerabilities.length,
      },
    };
    for (const v of doc.vulnerabilities) {
      yield { kind: 'cve', record: nvdRecordFromCve(record(v).cve) };
    }
    return;
  }
  const wrapped = record(doc).cve;
  const cve = wrapped && typeof wrapped === 'object' ? wrapped : doc;
  yield { kind: 'cve', record: nvdRecordFromCve(cve) };
}

export async function* readNvd(path: string): AsyncGenerator<IngestItem> {
  let doc: unknown;
  try {
    doc = parseFeedJson(await readText(path));
  } catch (err) {
    throw new FeedFormatError(`${path}: not valid NVD JSON (${errorMessage(err)})`);
  }
  yield* nvdItemsFromJson(doc);
}

function bound(incl: unknown, excl: unknown): AffectedRange['start'] {
  if (str(incl)) return { version: str(incl), inclusive: true };
  if (str(excl)) return { version: str(excl), inclusive: false };
  return null;
}

function matchesOf(nodes: unknown, vulnerable: boolean, out: CpeMatch[], depth = 0): void {
  if (depth > 8) return;
  for (const node of arr(nodes).map(record)) {
    // A negated node says "not this": it names no affected product and no platform with certainty.
    if (node.negate === true) continue;
    for (const m of arr(node.cpeMatch)) if (CpeMatch.Check(m) && m.vulnerable === vulnerable) out.push(m);
    if (node.nodes) matchesOf(node.nodes, vulnerable, out, depth + 1);
  }
}

/**
 * NVD configurations → structured ranges (docs/correlation.md §3). Each vulnerable cpeMatch is one
 * `affected` range: the versionStart and versionEnd fields become the bounds, a CPE with a concrete version (plus its update
 * component) an exact version, `*` or `-` with no bounds every version. A configuration that also lists
 * non-vulnerable matches (NVD's AND of "application running on platform", or firmware on its hardware) puts the
 * non-vulnerable criteria on `runningOn`: the range applies only when the asset is one of those platforms.
 * `fixedIn` stays null: a versionEndExcluding is not a statement that the version fixes it (CVE-2023-0228 ends a
 * range before 3.3 and lists 3.3 itself as vulnerable).
 */
export function rangesFromConfigurations(configurations: unknown): AffectedRange[] {
  const out: AffectedRange[] = [];
  for (const cfg of arr(configurations).map(record)) {
    const vulnerable: CpeMatch[] = [];
    const platforms: CpeMatch[] = [];
    matchesOf(cfg.nodes, true, vulnerable);
    matchesOf(cfg.nodes, false, platforms);
    const runningOn = platforms.length ? [...new Set(platforms.map((p) => p.criteria))] : null;
    for (const m of vulnerable) {
      const c = parseCpeName(m.criteria);
      if (!c) continue;
      const start = bound(m.versionStartIncluding, m.versionStartExcluding);
      const end = bound(m.versionEndIncluding, m.versionEndExcluding);
      out.push({
        source: 'nvd',
        vendor: c.vendor,
        product: c.product,
        cpe: m.criteria,
        status: 'affected',
        version: start || end ? null : cpeVersion(c),
        start,
        end,
        versionType: null,
        changes: [],
        defaultStatus: null,
        fixedIn: null,
        runningOn,
        text: null,
      });
    }
  }
  return out;
}
