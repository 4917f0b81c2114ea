// Rendering one evaluated CVE into the published §2.7 object: texts (wording.ts) and references. Rendering
// happens only for the CVEs a response returns; each item is rendered once (caches.ts).
import type { CveMeta } from './evaluation-index.ts';
import type { CveStatus } from './verdict-facts.ts';
import type { SortKeys } from './priority.ts';
import type { CveItem, CveSignals } from './evaluate.ts';
import { fixAction, priorityReason, whyText } from './wording.ts';
import { RENDERED } from './caches.ts';

export interface ReferenceLink {
  url: string;
  tags: string[];
  provided_by: string;
}
export interface ReferencesOut {
  nvd_url: string;
  cve_org_url: string;
  vendor_advisories: ReferenceLink[];
  cisa_ics_advisories: { advisory_id: string; url: string | null; title: string; published: string | null }[];
  other_references: ReferenceLink[];
  other_references_total: number;
}

export interface CveResult {
  cve_id: string;
  status: CveStatus;
  fixed_build: string | null;
  kb: string | null;
  source: string | null;
  severity: string | null;
  known_exploited: boolean;
  note: string | null;
  priority_rank: number;
  priority_reason: string;
  fix: { available: boolean; action: string; source: string | null; derived: boolean };
  references: ReferencesOut;
  _k: SortKeys;
}

const NVD = (cve: string) => `https://nvd.nist.gov/vuln/detail/${cve}`;
const CVE_ORG = (cve: string) => `https://www.cve.org/CVERecord?id=${cve}`;

function referencesFor(meta: CveMeta, sig: CveSignals | undefined): ReferencesOut {
  const base: ReferencesOut = sig?.references
    ? { ...sig.references, vendor_advisories: [...sig.references.vendor_advisories] }
    : {
        nvd_url: NVD(meta.cve),
        cve_org_url: CVE_ORG(meta.cve),
        // Stryker disable next-line ArrayDeclaration: the fallback's advisories are dropped by the Microsoft-domain filter that follows
        vendor_advisories: [],
        cisa_ics_advisories: [],
        other_references: [],
        other_references_total: 0,
      };
  // The Windows vendor's advisory pages: the MSRC page the document links, plus Microsoft-domain advisories
  // already in the corpus (no link is constructed).
  const ms = base.vendor_advisories.filter((r) => /(^|\.)microsoft\.com$/i.test(hostOf(r.url)));
  if (meta.advisoryUrl && !ms.some((r) => r.url === meta.advisoryUrl))
    ms.unshift({ url: meta.advisoryUrl, tags: ['Vendor Advisory'], provided_by: 'msrc' });
  base.vendor_advisories = ms;
  return base;
}

function hostOf(url: string): string {
  // Stryker disable BlockStatement,StringLiteral: a URL that does not parse has no Microsoft host whatever the fallback text: the filter drops it alike
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

// Stryker restore BlockStatement,StringLiteral
/** Render an item into the §2.7 per-CVE object. `buildText` is the host's os_build. */
export function renderCve(it: CveItem, buildText: string | null, rank: number): CveResult {
  // Items are shared by hosts with the same facts: render each once.
  const hit = RENDERED.get(it);
  if (hit && hit.build === buildText && hit.rank === rank) return hit.r;
  const r = renderFresh(it, buildText, rank);
  RENDERED.set(it, { build: buildText, rank, r });
  return r;
}

function renderFresh(it: CveItem, buildText: string | null, rank: number): CveResult {
  const { p, v, sig } = it;
  const why = whyText(v, buildText, p);
  return {
    cve_id: it.cve_id,
    status: it.status,
    fixed_build: v.fixedBuild,
    kb: v.kb,
    source: p.pc.meta.cvrfUrl,
    severity: p.pc.severity,
    known_exploited: it.known_exploited,
    note: it.note ?? v.note,
    priority_rank: rank,
    priority_reason:
      it.status === v.status ? priorityReason(v, why, sig, p.pc.severity, it._k) : `Needs review: ${it.note}.`,
    fix: {
      available: it._k.fixAvailable,
      action: fixAction(v, it.productName, it.installed === true),
      source: v.fixUrl,
      derived: v.derived,
    },
    references: referencesFor(p.pc.meta, sig),
    _k: it._k,
  };
}
