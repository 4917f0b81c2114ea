// What a CSAF vulnerability's product_status lists state: structured ranges per product (docs/correlation.md §3) and
// the vendor's own statements (docs/triage.md "Vendor statements").
import type { AdvisoryFix } from './types.ts';
import type { VendorStatement } from '../domain/records.ts';
import { arr, record, str } from './json.ts';
import type { Leaf } from './csaf-product-tree.ts';
import type { AffectedRange, RangeStatus } from '../domain/ranges.ts';
import { parseCsafRange } from '../domain/csaf-ranges.ts';
import { readFreeText, type FreeTextReading } from '../domain/free-text-ranges.ts';
import { compareVersions } from '../domain/versions.ts';

/** A JSON object as read: each member checked before use. */
type Entry = Record<string, unknown>;

/** product_status lists → the range status they state (first/last_affected bound the leaf's version). */
const STATUS_LISTS: [string, RangeStatus][] = [
  ['known_affected', 'affected'],
  ['first_affected', 'affected'],
  ['last_affected', 'affected'],
  ['fixed', 'unaffected'],
  ['first_fixed', 'unaffected'],
  ['known_not_affected', 'unaffected'],
];

/** The one fixed version the advisory states for a product: product_status.fixed, else a single vendor_fix version. */
function fixedVersionOf(product: string, fixes: AdvisoryFix[]): string | null {
  const mine = fixes.filter((f) => f.product === product);
  const stated = mine.find((f) => f.origin === 'product_status.fixed');
  if (stated) return stated.version;
  const texts = [...new Set(mine.map((f) => f.version))];
  return texts.length === 1 ? texts[0] : null;
}

/**
 * Structured ranges of one vulnerability (docs/correlation.md §3): one per product id its
 * product_status lists. product_version → that version; product_version_range → parseCsafRange (text kept when
 * not certain); a leaf without a version branch → every version. `fixedIn`: for fixed leaves their own version,
 * for affected leaves the version the advisory states fixes that product (product_status.fixed or vendor_fix text).
 */
export function csafRanges(status: Entry, leaves: Map<string, Leaf>, fixes: AdvisoryFix[]): AffectedRange[] {
  const out: AffectedRange[] = [];
  const seen = new Set<string>();
  for (const [list, st] of STATUS_LISTS) {
    for (const id of arr(status[list])) {
      if (typeof id !== 'string') continue;
      const l = leaves.get(id);
      if (!l || !l.vendor || seen.has(`${list}\u0000${id}`)) continue;
      seen.add(`${list}\u0000${id}`);
      const product = l.product ?? l.full;
      if (!product) continue;
      const base: AffectedRange = {
        source: 'csaf',
        vendor: l.vendor,
        product,
        cpe: null,
        status: st,
        version: null,
        start: null,
        end: null,
        versionType: null,
        changes: [],
        defaultStatus: null,
        fixedIn: null,
        runningOn: null,
        text: null,
      };
      if (l.version) base.version = l.version;
      else if (l.range) {
        const r = parseCsafRange(l.range, l.full);
        if (r.kind === 'exact') base.version = r.version;
        else if (r.kind === 'bounds') {
          base.start = r.start;
          base.end = r.end;
        } else if (r.kind === 'text') {
          // Free text read into one or more ranges where certain (domain/free-text-ranges.ts), its condition kept.
          // A range its product's name contradicts ("< 2.1 SP2" of "2.1 SP2 and earlier") stays text.
          const contradicted = parseCsafRange(l.range).kind !== 'text';
          const free =
            st === 'affected' && list === 'known_affected' && !contradicted
              ? readFreeText(l.range, l.vendor, product)
              : null;
          if (free) {
            out.push(...freeRanges(base, free, product, fixes));
            continue;
          }
          base.text = l.range;
        }
      }
      if (list === 'first_affected' && base.version) {
        base.start = { version: base.version, inclusive: true };
        base.version = null;
      }
      if (list === 'last_affected' && base.version) {
        base.end = { version: base.version, inclusive: true };
        base.version = null;
      }
      if (st === 'unaffected' && list !== 'known_not_affected') base.fixedIn = base.version;
      if (st === 'affected') {
        // A stated fix below the affected versions would contradict the range: not kept.
        const fixed = fixedVersionOf(product, fixes);
        const top = base.end?.version ?? base.version;
        base.fixedIn = fixed && top && compareVersions(fixed, top) === -1 ? null : fixed;
      }
      out.push(base);
    }
  }
  return out;
}

/** The ranges of a free-text reading of an affected leaf: one per piece, each with its own fix (else the advisory's). */
function freeRanges(
  base: AffectedRange,
  free: FreeTextReading,
  product: string,
  fixes: AdvisoryFix[],
): AffectedRange[] {
  const condition = free.condition ? { condition: free.condition } : {};
  const fixed = fixedVersionOf(product, fixes);
  if (free.all) return [{ ...base, fixedIn: fixed, ...condition }];
  return free.pieces.map((p) => {
    const top = p.end?.version ?? p.version;
    const advisory = fixed && top && compareVersions(fixed, top) === -1 ? null : fixed;
    return { ...base, version: p.version, start: p.start, end: p.end, fixedIn: p.fixedIn ?? advisory, ...condition };
  });
}

const VENDOR_LISTS: [string, VendorStatement['status']][] = [
  ['fixed', 'fixed'],
  ['first_fixed', 'fixed'],
  ['known_not_affected', 'not_affected'],
];
const CISA_LABELS = new Set([
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
]);

/**
 * The vendor's own VEX for one vulnerability (docs/triage.md "Vendor statements"): one statement per product its
 * `fixed`, `first_fixed` or `known_not_affected` list names, with the flag (justification), impact threats and
 * vendor_fix remediations that name the same product. Texts as stated; a product named twice is stated once.
 */
export function vendorStatements(v: Entry, status: Entry, leaves: Map<string, Leaf>): VendorStatement[] {
  const naming = (items: unknown, id: string) =>
    arr(items)
      .map(record)
      .filter((x) => arr(x.product_ids).includes(id));
  const joined = (xs: string[]) => (xs.length ? [...new Set(xs)].join('\n\n') : null);
  const out: VendorStatement[] = [];
  const seen = new Set<string>();
  for (const [list, st] of VENDOR_LISTS) {
    for (const id of arr(status[list])) {
      if (typeof id !== 'string') continue;
      const l = leaves.get(id);
      if (!l || seen.has(id)) continue;
      const product = l.product ?? l.full;
      if (!product) continue;
      seen.add(id);
      const flag =
        naming(v.flags, id)
          .map((f) => str(f.label))
          .find((label) => CISA_LABELS.has(label)) ?? null;
      out.push({
        status: st,
        vendor: l.vendor,
        product,
        version: l.version ?? l.range,
        product_name: l.full || product,
        justification: st === 'not_affected' ? flag : null,
        impact_statement: joined(
          naming(v.threats, id)
            .filter((x) => x.category === 'impact')
            .map((x) => str(x.details).trim())
            .filter(Boolean),
        ),
        action_statement:
          st === 'fixed'
            ? joined(
                naming(v.remediations, id)
                  .filter((x) => x.category === 'vendor_fix')
                  .map((x) => str(x.details).trim())
                  .filter(Boolean),
              )
            : null,
      });
    }
  }
  return out;
}
