// What both forms of an MSRC CVRF document share: its zoneless dates, the advisory links of its note text, an
// empty vulnerability to fill, and its score numbers.
import type { MsrcVulnerability } from '../domain/windows/msrc-types.ts';
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
export function collectAdvisoryUrls(html: string, into: Map<string, string>, onlyCve?: string): void {
  if (html.indexOf('update-guide') < 0) return;
  ADVISORY_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ADVISORY_RE.exec(html)) !== null) {
    const cve = m[1].toUpperCase();
    if (onlyCve && cve !== onlyCve) continue;
    if (!into.has(cve)) into.set(cve, m[0]);
  }
}

export function emptyVuln(): MsrcVulnerability {
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

export function num(s: string | null): number | null {
  if (s === null || s.trim() === '') return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}
