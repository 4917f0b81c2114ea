// CSAF product_version_range texts → structured bounds (docs/correlation.md §3). Pure.
// Parsed only where the meaning is certain; everything else is kept as text and answered "version range not
// machine-readable" (needs_review) by correlation.
//   vers:<scheme>/*                         every version
//   vers:<scheme>/<op><v>                   one bound (op <, <=, >, >=; = or none: that version)
//   vers:<scheme>/>=a|<b                    one interval (a lower and an upper bound)
//   free text "<= 1.0", "< V3.1.4", ">= 2.0", "1.2.3" (one version), "prior to V2.9.2", "before 2.0",
//   "2.0 and earlier|prior|older", "all versions" / "all", "all versions < V3.0" / "all versions prior to V3.0",
//   "1.0.0 to 1.3.7" / "versions 2.7 through 2.8.21" / "from 9.0.0.M1 to 9.0.9" (both ends included),
//   ">= V2.3 and < V6.30.016" / ">= V2.5 < V2.6.1" / ">= 1.0 | <= 1.32" (an interval)
// A version inside must parse with the comparator (versions.ts) unless it came from a vers: string (whose grammar
// is certain; the comparator answers needs_review later if it cannot order it). A "<" range whose product name
// says "and earlier" of the same version contradicts itself and stays text.
import { orderable } from './versions.ts';
import type { VersionBound } from './ranges.ts';

export type ParsedRange =
  | { kind: 'all' }
  | { kind: 'exact'; version: string }
  | { kind: 'bounds'; start: VersionBound | null; end: VersionBound | null }
  | { kind: 'text' };

function op(o: string, v: string): ParsedRange | null {
  // Stryker disable next-line MethodExpression: op() gets a trimmed, non-empty piece from every caller
  const version = v.trim();
  // Stryker disable next-line ConditionalExpression: op() gets a trimmed, non-empty piece from every caller
  if (!version) return null;
  switch (o) {
    case '<':
      return { kind: 'bounds', start: null, end: { version, inclusive: false } };
    case '<=':
      return { kind: 'bounds', start: null, end: { version, inclusive: true } };
    case '>':
      return { kind: 'bounds', start: { version, inclusive: false }, end: null };
    case '>=':
      return { kind: 'bounds', start: { version, inclusive: true }, end: null };
    case '=':
    case '':
      return { kind: 'exact', version };
    default:
      return null;
  }
}

function vers(body: string): ParsedRange {
  // Constraints are '|'-separated; two glued without it (Siemens writes "vers:intdot/>=V2.9.2<V2.9.4") are split at
  // the second comparator: a version never contains '<', '>', '=' or '!'.
  // Stryker disable Regex: the pieces are trimmed and split at a comparator after any spaces
  const cs = body
    .split('|')
    .flatMap((c) => c.match(/(?:<=|>=|!=|<|>|=)?[^<>=!]+/g) ?? [c])
    .map((c) => c.trim())
    .filter(Boolean);
  // Stryker restore Regex
  if (cs.length === 1 && cs[0] === '*') return { kind: 'all' };
  // '!=' (an exclusion) is no bound: op() answers null for it.
  // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
  const parsed = cs.map((c) => /^(<=|>=|<|>|=|!=)?\s*(.+)$/.exec(c)).map((m) => (m ? op(m[1] ?? '', m[2]) : null));
  if (!parsed.every((p) => p !== null)) return { kind: 'text' };
  if (parsed.length === 1) return parsed[0];
  if (parsed.length === 2) {
    const [a, b] = parsed;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: the kind checks are kept for the type narrowing: the other conditions decide
    if (a.kind === 'bounds' && b.kind === 'bounds' && a.start && !a.end && b.end && !b.start)
      return { kind: 'bounds', start: a.start, end: b.end };
  }
  return { kind: 'text' };
}

/** A version the comparator can order (a Cisco "15.2(7)E3" or a train's "R510.2" too, against their own kind). */
const certain = (v: string) => orderable(v);

/** Reads one CSAF version-range name (and the product's full name, to catch a self-contradiction). */
// Stryker disable next-line StringLiteral: the default full name only feeds the "and earlier" test, which no constant without a version passes
export function parseCsafRange(name: string, fullName = ''): ParsedRange {
  const t = name.trim().replace(/\s+/g, ' ');
  // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
  const m = /^vers:[a-z0-9.+-]+\/(.*)$/i.exec(t);
  if (m) return vers(m[1]);
  let r: RegExpExecArray | null;
  if (/^all( versions)?$/i.test(t)) return { kind: 'all' };
  const s = t.replace(/^all versions\s*/i, '');
  let out: ParsedRange | null = null;
  // An interval: ">= V2.3 and < V6.30.016", ">= V2.5 < V2.6.1", ">= 1.0 | <= 1.32", ">=V2.9.2<V2.9.4".
  if (
    // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
    (r = /^(>=|>)\s*([^\s<>=|,]+)\s*(?:,|\||and)?\s*(<=|<)\s*([^\s<>=|,]+)$/i.exec(s)) &&
    certain(r[2]) &&
    certain(r[4])
  ) {
    out = {
      kind: 'bounds',
      start: { version: r[2], inclusive: r[1] === '>=' },
      end: { version: r[4], inclusive: r[3] === '<=' },
    };
  } else if (
    // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
    (r = /^(<=|>=|<|>|=)\s*(\S.*)$/.exec(s)) &&
    certain(r[2])
  )
    out = op(r[1], r[2]);
  else if (
    // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
    (r = /^(?:prior to|before|earlier than|older than)\s+(\S.*)$/i.exec(s)) &&
    certain(r[1])
  )
    out = op('<', r[1]);
  else if (
    // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
    (r = /^(\S.*?)\s+(?:and|or)\s+(?:earlier|prior|older|below|lower)(?: versions?)?$/i.exec(s)) &&
    certain(r[1])
  )
    out = op('<=', r[1]);
  else if (
    // Stryker disable next-line Regex: the text is trimmed, its whitespace runs collapsed to one space and free of newlines before these patterns
    (r = /^(?:versions?\s+|from\s+)?(\S+)\s+(?:to|through|thru)\s+(\S+)$/i.exec(s)) &&
    certain(r[1]) &&
    certain(r[2])
  ) {
    out = { kind: 'bounds', start: { version: r[1], inclusive: true }, end: { version: r[2], inclusive: true } };
  } else if (s === t && certain(s)) out = { kind: 'exact', version: s };
  if (!out) return { kind: 'text' };
  // Stryker disable next-line ConditionalExpression: the kind checks are kept for the type narrowing: the other conditions decide
  if (out.kind === 'bounds' && out.end && !out.end.inclusive) {
    // Stryker disable next-line MethodExpression: the pattern is case-insensitive, so the case folding is duplicated
    const v = out.end.version.toLowerCase();
    if (
      // Stryker disable next-line StringLiteral: the pattern is case-insensitive, so the case folding is duplicated
      new RegExp(`${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+(?:and|or)\\s+(?:earlier|prior|older)`, 'i').test(
        // Stryker disable next-line MethodExpression: the pattern is case-insensitive, so the case folding is duplicated
        fullName.toLowerCase(),
      )
    )
      return { kind: 'text' };
  }
  return out;
}
