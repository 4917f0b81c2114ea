// The `affected[]` entries of a CVE Record 5 (CVE 5 schema "product"): the structured ranges they state
// (docs/cve5.md, docs/correlation.md §3) and the vendor/product each names for the product rules.
import type { AffectedProduct } from './types.ts';
import { arr, record, str, strings } from './json.ts';
import { parseCpe } from './nvd.ts';
import type { AffectedRange, RangeStatus } from '../domain/ranges.ts';
import { parseCsafRange } from '../domain/csaf-ranges.ts';
import { readFreeText } from '../domain/free-text-ranges.ts';
import { comparatorOf, orderableIn, schemeOf } from '../domain/version-schemes.ts';

/** A JSON object as read: each member checked before use. */
type Entry = Record<string, unknown>;

const NAMELESS = new Set(['', 'n/a', 'na', 'unknown', 'unspecified', '-', '*']);
const named = (s: unknown): string | null => {
  const t = str(s).trim();
  return NAMELESS.has(t.toLowerCase()) ? null : t;
};

function rangeStatus(s: unknown): RangeStatus {
  const t = str(s).toLowerCase();
  return t === 'affected' || t === 'unaffected' ? t : 'unknown';
}

/** A `version` that stands for every version (the schema's `*`, and the CNAs' "n/a" / "unspecified" / "0"). */
const ALL_VERSIONS = new Set(['*', 'n/a', 'unspecified', '-', '', 'all', 'all versions']);
/** A version spelt as words or with operators ("< 2.3", "prior to 5.1", "2.0 and earlier"): not machine-readable. */
const FREE_TEXT = /\s|^[<>=≤≥]/;

type Shared = Pick<AffectedRange, 'vendor' | 'product' | 'cpe' | 'defaultStatus'> & { packageName: string | null };

/**
 * One range of an `affected[]` entry: one literal per range (a spread of shared fields costs more than the
 * statement: 263k ranges in 44k records), built by a module-level function (a closure per entry would be named by
 * tsx's keepNames transform on every call).
 */
function range(
  s: Shared,
  r: Pick<AffectedRange, 'status' | 'version' | 'start' | 'end' | 'versionType' | 'changes' | 'fixedIn' | 'text'>,
): AffectedRange {
  const out: AffectedRange = {
    source: 'cve5',
    vendor: s.vendor,
    product: s.product,
    cpe: s.cpe,
    status: r.status,
    version: r.version,
    start: r.start,
    end: r.end,
    versionType: r.versionType,
    changes: r.changes,
    defaultStatus: s.defaultStatus,
    fixedIn: r.fixedIn,
    runningOn: null,
    text: r.text,
  };
  // An RPM build of a package the product carries: the versions are the package's, not the product's.
  if (s.packageName !== null && s.packageName !== s.product && r.versionType !== null && /^rpm$/i.test(r.versionType))
    out.package = s.packageName;
  return out;
}

/** How many of the chipsets a line-level condition names before "…". */
const CHIPS_NAMED = 8;

/**
 * Qualcomm's records name the product line "Snapdragon" and list its chipsets and platforms in `versions[]`
 * ("QCA6574AU", "FastConnect 6900", "Snapdragon 865 5G Mobile Platform"), each with a status and nothing else: those
 * are products, not versions. Each becomes a statement of every version of that chipset (as NVD's
 * `qca6574au_firmware:-` configurations say), and the line itself one of every version under the condition that the
 * asset is one of them (an asset named only "Snapdragon" is needs_review, never decided by a chipset name read as a
 * version). null for any other entry.
 */
function chipsetsAsVersions(s: Shared, versions: Entry[]): AffectedRange[] | null {
  if (!/^snapdragon$/i.test(s.product) || !/qualcomm/i.test(s.vendor)) return null;
  if (
    !versions.every(
      (v) => Object.keys(v).every((k) => k === 'version' || k === 'status') && str(v.version).trim() !== '',
    )
  )
    return null;
  const out: AffectedRange[] = [];
  const byStatus = new Map<RangeStatus, string[]>();
  for (const v of versions) {
    const chip = str(v.version).trim();
    const status = rangeStatus(v.status);
    out.push(
      range(
        { ...s, product: chip, cpe: null },
        { status, version: null, start: null, end: null, versionType: null, changes: [], fixedIn: null, text: null },
      ),
    );
    byStatus.set(status, [...(byStatus.get(status) ?? []), chip]);
  }
  for (const [status, chips] of byStatus) {
    const named =
      chips.slice(0, CHIPS_NAMED).join(', ') + (chips.length > CHIPS_NAMED ? `, … (${chips.length} in all)` : '');
    out.push({
      ...range(s, {
        status,
        version: null,
        start: null,
        end: null,
        versionType: null,
        changes: [],
        fixedIn: null,
        text: null,
      }),
      condition: `only the chipsets and platforms the record lists as ${status}: ${named}`,
    });
  }
  return out;
}

/**
 * The structured statements of one `affected[]` entry (CVE 5 schema "product"): each `versions[]` item is one
 * range — `version` alone is one exact version; with `lessThan` / `lessThanOrEqual` it is the range from `version`
 * (inclusive; `0` and `*` mean unbounded) up to that bound (`*`: unbounded), with `changes[]` kept in order; an
 * entry with no versions states its `defaultStatus` for every version.
 */
export function rangesOfAffected(entry: unknown, cpeFallback: string | null = null): AffectedRange[] {
  const a = record(entry);
  const vendor = named(a.vendor);
  const product = named(a.product) ?? named(a.packageName);
  if (!vendor && !product) return [];
  const cpe = strings(a.cpes)[0] ?? cpeFallback;
  const defaultStatus = typeof a.defaultStatus === 'string' ? rangeStatus(a.defaultStatus) : null;
  const shared: Shared = {
    vendor: vendor ?? '',
    product: product ?? '',
    cpe,
    defaultStatus,
    packageName: named(a.packageName),
  };
  const versions = arr(a.versions).map(record);
  if (!versions.length) {
    if (!defaultStatus) return [];
    return [
      range(shared, {
        status: defaultStatus,
        version: null,
        start: null,
        end: null,
        versionType: null,
        changes: [],
        fixedIn: null,
        text: null,
      }),
    ];
  }
  const chips = chipsetsAsVersions(shared, versions);
  if (chips) return chips;
  const out: AffectedRange[] = [];
  for (const v of versions) {
    const version = str(v.version).trim();
    const status = rangeStatus(v.status);
    const versionType = typeof v.versionType === 'string' && v.versionType.trim() ? v.versionType.trim() : null;
    const changes = arr(v.changes)
      .map(record)
      .filter((c) => typeof c.at === 'string' && c.at.trim())
      .map((c) => ({ at: str(c.at).trim(), status: rangeStatus(c.status) }));
    const lt = typeof v.lessThan === 'string' ? v.lessThan.trim() : null;
    const lte = typeof v.lessThanOrEqual === 'string' ? v.lessThanOrEqual.trim() : null;
    const bound = lt ?? lte;
    const firstFixed = changes.find((c) => c.status === 'unaffected')?.at ?? null;
    if (bound !== null) {
      const startOpen = ALL_VERSIONS.has(version.toLowerCase()) || version === '0';
      // A bound that is no version ("publication", Microsoft's "before the fix was published") or is spelt as
      // words is kept as text: matching answers "needs review".
      // "V2.0 SP1" (Siemens), "Version 4.1.5" (Emerson): a spaced version its scheme orders is a version.
      const scheme = schemeOf(shared.vendor, shared.product, versionType);
      const spelt = (x: string) => !FREE_TEXT.test(x) || orderableIn(scheme, x);
      const unread = (!startOpen && !spelt(version)) || (bound !== '*' && (!spelt(bound) || !/\d/.test(bound)));
      // A range that holds no version (">= 9.1R17.4, < 9.1R17.4", "2022 SU6 < 2022 SU6": Ivanti's records) says
      // nothing certain: read literally it would leave that version unaffected. Kept as text.
      const order = unread || startOpen || bound === '*' ? null : comparatorOf(scheme)(version, bound);
      const textual = unread || order === 1 || (order === 0 && lt !== null);
      out.push(
        range(shared, {
          status,
          version: null,
          start: startOpen || textual ? null : { version, inclusive: true },
          end: bound === '*' || textual ? null : { version: bound, inclusive: lt === null },
          versionType,
          changes,
          fixedIn: firstFixed ?? (status === 'affected' && lt !== null && lt !== '*' && !textual ? lt : null),
          text: textual ? [version, lt !== null ? `< ${lt}` : `<= ${lte}`].filter(Boolean).join(' ') : null,
        }),
      );
      continue;
    }
    // A range written into `version`, read where its meaning is certain: "All versions < V4.1.1 Patch04" / "< 2.3"
    // (Siemens and others; the bound is kept even where the comparator cannot order it), else with the CSAF range
    // texts' rules (domain/csaf-ranges.ts: "1.0.0 to 1.3.7", "prior to 23.08.07", ">= 1.0 | <= 1.32", …).
    const all = ALL_VERSIONS.has(version.toLowerCase());
    // Free text read into one or more ranges where its meaning is certain (domain/free-text-ranges.ts): "Versions 9.8
    // and prior", "Fixed in OpenSSL 3.0.5 (Affected 3.0.0-3.0.4)", "2.7 | 3.0.71 | >= 4.0.x | <= 4.6.4", … A
    // condition in words stays on every range read.
    // A version its scheme orders is that version, spaces and all ("3.2.0 p1", Cisco ISE; "4.71 AFBT48C", a Lenovo
    // release and its build; "Android 12.0", a platform release).
    const ordered = !all && orderableIn(schemeOf(shared.vendor, shared.product, versionType), version);
    const free = !all && !ordered ? readFreeText(version, shared.vendor, shared.product) : null;
    if (free && !(free.pieces.length === 1 && free.pieces[0].version === version && !free.condition)) {
      const condition = free.condition ? { condition: free.condition } : {};
      if (free.all)
        out.push({
          ...range(shared, {
            status,
            version: null,
            start: null,
            end: null,
            versionType,
            changes,
            fixedIn: firstFixed,
            text: null,
          }),
          ...condition,
        });
      for (const p of free.pieces) {
        out.push({
          ...range(shared, {
            status,
            version: p.version,
            start: p.start,
            end: p.end,
            versionType,
            changes,
            fixedIn: firstFixed ?? (status === 'affected' ? p.fixedIn : null),
            text: null,
          }),
          ...condition,
        });
      }
      continue;
    }
    const below = /^(?:all versions\s*)?(<=?)\s*([^\s<>=].*)$/i.exec(version);
    const read = ordered
      ? null
      : below && /\d/.test(below[2])
        ? { kind: 'bounds' as const, start: null, end: { version: below[2].trim(), inclusive: below[1] === '<=' } }
        : !all && FREE_TEXT.test(version)
          ? parseCsafRange(version)
          : null;
    if (read?.kind === 'bounds') {
      const end = read.end;
      out.push(
        range(shared, {
          status,
          version: null,
          start: read.start,
          end,
          versionType,
          changes,
          // Like lessThan: an exclusive end is the first fixed version.
          fixedIn: firstFixed ?? (status === 'affected' && end && !end.inclusive ? end.version : null),
          text: null,
        }),
      );
      continue;
    }
    // "0" alone: the CVE schema's earliest version, with no end and no change (Vulnogram's default: CVE-2023-2851 states
    // it for "all versions", CVE-2023-49721 for a bug fixed in a later release). No version is "0": text, needs_review.
    const zero = version === '0' && changes.length === 0;
    // Every version, one version, or text answered needs_review.
    const exact = zero ? null : read === null ? (all ? null : version) : read.kind === 'exact' ? read.version : null;
    out.push(
      range(shared, {
        status,
        version: exact,
        start: null,
        end: null,
        versionType,
        changes,
        fixedIn: firstFixed,
        text: zero || read?.kind === 'text' ? version : null,
      }),
    );
  }
  return out;
}

/** The products of an `affected[]` entry for the vendor/product rules (spec §2.3 `affected`). */
export function productOf(a: Entry, origin: 'cna' | 'cpe'): AffectedProduct | null {
  const vendor = named(a.vendor);
  if (!vendor) return null;
  const cpe =
    strings(a.cpes)
      .map(parseCpe)
      .find((c) => c !== null) ?? null;
  const part = cpe && (cpe.part === 'a' || cpe.part === 'o' || cpe.part === 'h') ? cpe.part : null;
  const versions = arr(a.versions)
    .map(record)
    .filter((v) => str(v.status) === 'affected');
  const stated = versions
    .map((v) => {
      const lt = str(v.lessThan) || null;
      const lte = str(v.lessThanOrEqual) || null;
      const from = str(v.version);
      if (!lt && !lte) return NAMELESS.has(from.toLowerCase()) ? '' : from;
      return [
        from && from !== '0' && from !== '*' ? `>=${from}` : '',
        lt && lt !== '*' ? `<${lt}` : '',
        lte && lte !== '*' ? `<=${lte}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    })
    .filter(Boolean);
  return {
    vendor,
    product: named(a.product),
    origin,
    cpe_part: origin === 'cpe' ? part : null,
    version: stated.length ? stated.slice(0, 3).join(', ') : null,
  };
}
