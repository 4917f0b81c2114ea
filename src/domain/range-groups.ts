// Range rows as `cve_ranges` stores them (migration 1260; docs/correlation.md §4). The rows of one source record of a
// CVE that name the same product the same way (source, source key, vendor, product, CPE: so the same lookup keys)
// are one stored group, whose statements are kept in the rows' order with only what each states: a CVE record listing
// 4,868 IOS versions is one row holding 4,868 short statements, not 4,868 rows each repeating the vendor, product,
// keys and ten null fields. The snapshot's 260,727 range rows are 122,866 groups, and their JSON is a third of the
// size. Reading a group back gives the rows rangeRows made (expandGroup), so correlation and the change history see
// rows as before. Pure.
import type { AffectedRange, RangeSource, RangeStatus, VersionBound } from './ranges.ts';
import type { RangeRow } from './correlate.ts';

/**
 * One stored group: the lookup columns its rows share (`ord`: the group's ordinal in its CVE, groups numbered in the
 * order of their first row) and its JSON text (the `ranges` column): `{"vendor":…,"product":…,"cpe":…,"ranges":
 * [statement, …]}`, each statement as packRange writes it.
 */
export interface RangeGroup extends Omit<RangeRow, 'range' | 'stated_at'> {
  text: string;
}

/** A group as read back: its columns and its parsed `ranges` JSON. */
export interface StoredGroup extends Omit<RangeGroup, 'text'> {
  /** `stated`: the source record's statement date (RangeRow.stated_at); absent in groups stored before it was kept. */
  ranges: { vendor: string; product: string; cpe: string | null; stated?: string; ranges: PackedRange[] };
}

/** A statement without its group's fields; a field that is null (an empty `changes`) is left out. */
export interface PackedRange {
  status: RangeStatus;
  version?: string;
  start?: VersionBound;
  end?: VersionBound;
  versionType?: string;
  changes?: { at: string; status: RangeStatus }[];
  defaultStatus?: RangeStatus;
  fixedIn?: string;
  runningOn?: string[];
  text?: string;
  condition?: string;
}

const str = JSON.stringify;
const bound = (b: VersionBound) => `{"version":${str(b.version)},"inclusive":${b.inclusive ? 'true' : 'false'}}`;

/** A statement as its group stores it: the fields of PackedRange in that order, those that are null left out. */
export function packRange(r: AffectedRange): string {
  let s = `{"status":${str(r.status)}`;
  if (r.version != null) s += `,"version":${str(r.version)}`;
  if (r.start != null) s += `,"start":${bound(r.start)}`;
  if (r.end != null) s += `,"end":${bound(r.end)}`;
  if (r.versionType != null) s += `,"versionType":${str(r.versionType)}`;
  if (r.changes.length)
    s += `,"changes":[${r.changes.map((c) => `{"at":${str(c.at)},"status":${str(c.status)}}`).join(',')}]`;
  if (r.defaultStatus != null) s += `,"defaultStatus":${str(r.defaultStatus)}`;
  if (r.fixedIn != null) s += `,"fixedIn":${str(r.fixedIn)}`;
  if (r.runningOn != null) s += `,"runningOn":${str(r.runningOn)}`;
  if (r.text != null) s += `,"text":${str(r.text)}`;
  if (r.condition != null) s += `,"condition":${str(r.condition)}`;
  return `${s}}`;
}

/** The range a packed statement of a group states (the inverse of packRange over canonical ranges). */
export function unpackRange(
  source: RangeSource,
  g: { vendor: string; product: string; cpe: string | null },
  p: PackedRange,
): AffectedRange {
  return {
    source,
    vendor: g.vendor,
    product: g.product,
    cpe: g.cpe,
    status: p.status,
    version: p.version ?? null,
    start: p.start ?? null,
    end: p.end ?? null,
    versionType: p.versionType ?? null,
    changes: p.changes ?? [],
    defaultStatus: p.defaultStatus ?? null,
    fixedIn: p.fixedIn ?? null,
    runningOn: p.runningOn ?? null,
    text: p.text ?? null,
    ...(p.condition != null ? { condition: p.condition } : {}),
  };
}

/** The groups of a CVE's rows (rangeRows' output: canonical ranges), in the order of their first row. */
export function groupRows(rows: readonly RangeRow[]): RangeGroup[] {
  const byKey = new Map<string, { row: RangeRow; packed: string[] }>();
  for (const row of rows) {
    const r = row.range;
    // The lookup columns are functions of these names (vendorSlug, productKey, variantBaseKey, parseCpe).
    const key = `${row.source}\u0000${row.source_key}\u0000${r.vendor}\u0000${r.product}\u0000${r.cpe ?? '\u0001'}`;
    const g = byKey.get(key);
    if (g) g.packed.push(packRange(r));
    else byKey.set(key, { row, packed: [packRange(r)] });
  }
  let ord = 0;
  const out: RangeGroup[] = [];
  for (const { row, packed } of byKey.values()) {
    const r = row.range;
    out.push({
      ord: ord++,
      source: row.source,
      source_key: row.source_key,
      vendor_slug: row.vendor_slug,
      product_key: row.product_key,
      cpe_vendor: row.cpe_vendor,
      cpe_product: row.cpe_product,
      base_key: row.base_key,
      text: `{"vendor":${str(r.vendor)},"product":${str(r.product)},"cpe":${str(r.cpe)}${row.stated_at ? `,"stated":${str(row.stated_at)}` : ''},"ranges":[${packed.join(',')}]}`,
    });
  }
  return out;
}

/** What a CVE's range set is hashed over: every group's columns and text, in order (a changed key is a change). */
export function groupsDigestText(groups: readonly RangeGroup[]): string {
  let s = '';
  for (const g of groups)
    s += `${str([g.source, g.source_key, g.vendor_slug, g.product_key, g.cpe_vendor, g.cpe_product, g.base_key])}${g.text}\n`;
  return s;
}

/**
 * The rows of a stored group of a CVE, in their order; each carries the group's ordinal. Each row is one object
 * literal of one shape (correlation reads these rows in its hottest loops: a spread of the stored row's other
 * columns made objects V8 could not keep on one map, and verdicts took twice as long).
 */
export function expandGroup(g: StoredGroup & { cve_id: string }): (RangeRow & { cve_id: string })[] {
  const { cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key } = g;
  const body = g.ranges;
  const stated_at = body.stated ?? null;
  const out = new Array<RangeRow & { cve_id: string }>(body.ranges.length);
  for (let i = 0; i < out.length; i++) {
    out[i] = {
      cve_id,
      ord,
      source,
      source_key,
      vendor_slug,
      product_key,
      cpe_vendor,
      cpe_product,
      base_key,
      stated_at,
      range: unpackRange(source, body, body.ranges[i]),
    };
  }
  return out;
}
