// The one enrichment entry point: a merged CVE (mergeSources) plus catalogs → the enriched CveDocument.
// Pure except for the optional analysis provider; `buildCveDocument` is the synchronous core that the
// bulk pipeline uses with the grounded analysis.
import type { CveDocument, SageBlock } from './cve-document.ts';
import type { MergedCve } from './merge.ts';
import type { CapecIndex } from './capec.ts';
import { capecForCwes } from './capec.ts';
import { cvssBlock, EMPTY_CVSS, CvssParseError } from './cvss.ts';
import { resolveAffected, type ResolvedAffected } from './affected.ts';
import { icsRelevance, classifyLayer, classifyCategory, type IcsInput } from './ics.ts';
import { exploitFacts } from './exploit.ts';
import { buildReferences } from './references.ts';
import { buildPatch } from './patch.ts';
import { cardSeverity, computeBcs, epssInterpretation, bsid } from './scoring.ts';
import { chooseTitle } from './title.ts';
import { groundedAnalysis, type AnalysisFacts, type AnalysisProvider } from './analysis.ts';

export interface Catalogs {
  /** CWE id → name (weaknesses and categories). */
  cwe: Map<number, { name: string }>;
  capec: CapecIndex;
}

export const cweUrl = (id: number) => `https://cwe.mitre.org/data/definitions/${id}.html`;

function cvssOf(merged: MergedCve) {
  // The chosen metric first; a metric whose vector does not parse is skipped for the next one.
  // Stryker disable next-line ArrayDeclaration,ConditionalExpression,MethodExpression: the chosen metric is one of all_cvss, so leading with it or not, and filtering it out or not, gives the same first parseable metric
  const candidates = merged.cvss ? [merged.cvss, ...merged.all_cvss.filter((m) => m !== merged.cvss)] : [];
  for (const m of candidates) {
    try {
      return cvssBlock(m.vector, m.score);
    } catch (err) {
      if (!(err instanceof CvssParseError)) throw err;
    }
  }
  return { ...EMPTY_CVSS };
}

export interface Built {
  doc: CveDocument;
  facts: AnalysisFacts;
}

/**
 * What ICS relevance and the category are decided on: the description, titles, product and advisory names (with
 * the two signals), and the title with the description. Exported for bench/ics-relevance.ts, which checks the
 * prefiltered patterns on these same texts.
 */
export function classificationInputs(
  merged: MergedCve,
  aff: ResolvedAffected,
  title: string,
): { ics: IcsInput; categoryText: string } {
  const description = merged.description ?? '';
  const text = [
    description,
    title,
    ...merged.titles.map((t) => t.title),
    ...aff.products,
    ...merged.advisories.map((a) => a.title),
  ].join('\n');
  return {
    ics: { text, has_cisa_ics_advisory: merged.advisories.length > 0, ics_vendor: aff.vendors.some((v) => v.ics) },
    categoryText: `${title}\n${description}`,
  };
}

/** Everything but the analysis provider call; `sage` is the grounded analysis. */
export function buildCveDocument(merged: MergedCve, catalogs: Catalogs, now: string): Built {
  // One severity for the card and the detail (docs/enrichment.md "Severity"): the CVSS of the fallback chain (NVD,
  // the CNA, CISA-ADP: merge.ts chooseCvss), else the vendor's own rating. The detail's scoring.cvss.severity is
  // that same answer; its other fields stay null when no CVSS scores the CVE.
  const scored = cvssOf(merged);
  const severity = cardSeverity(scored.severity, merged.msrc?.severity ?? null);
  const cvss = { ...scored, severity };
  const aff = resolveAffected(merged);
  const primaryVendor = aff.primary_vendor?.name ?? null;
  const weakness = merged.cwes.map((id) => catalogs.cwe.get(id)?.name).find(Boolean) ?? null;
  const title = chooseTitle(merged, { weakness, vendor: primaryVendor, product: aff.primary_product });
  const description = merged.description ?? '';
  const references = buildReferences(merged, aff.vendors);
  const inputs = classificationInputs(merged, aff, title);
  const ics = icsRelevance(inputs.ics);
  // KEV: the catalog alone decides (docs/enrichment.md "KEV"). A CVE record's CISA-ADP KEV marker is a copy of the
  // catalog at the time the record was written; CISA removes entries (CVE-2021-4043, CVE-2024-43491), and a marker
  // outlives the removal, so it never flags a CVE the catalog does not list.
  const kevAddedDate = merged.kev?.date_added ?? null;
  const exploitation = exploitFacts(
    merged.cve_id,
    merged.kev !== null,
    merged.references,
    merged.cve5?.ssvc_exploitation ?? null,
  );
  const patch = buildPatch(merged, new Set(references.vendor_advisories.map((v) => v.url)), aff.primary_vendor);
  const epssScore = merged.epss?.epss ?? null;
  const epssPct = merged.epss?.percentile ?? null;
  const bcs = computeBcs({
    cvss_score: cvss.score,
    kev_flagged: exploitation.kev_flagged,
    has_public_exploit: exploitation.has_public_exploit,
    poc_available: exploitation.poc_available,
    patch_available: patch.patch_available,
    ics_relevance: ics.score,
    epss_percentile: epssPct,
  });

  const layer = classifyLayer(ics);
  const cwes = merged.cwes.map((id) => ({ id, url: cweUrl(id) }));
  const capec = capecForCwes(merged.cwes, catalogs.capec);
  const kevAdded = kevAddedDate ? `${kevAddedDate}T00:00:00.000Z` : null;
  const facts: AnalysisFacts = {
    cve_id: merged.cve_id,
    title,
    description,
    vendor: primaryVendor,
    product: aff.primary_product,
    cvss: {
      score: cvss.score,
      severity: cvss.severity,
      version: cvss.version,
      attack_vector: cvss.attack_vector,
      privileges_required: cvss.privileges_required,
      user_interaction: cvss.user_interaction,
      availability_impact: cvss.availability_impact,
    },
    epss: { score: epssScore, percentile: epssPct, interpretation: epssInterpretation(epssPct) },
    kev: merged.kev
      ? {
          added: merged.kev.date_added,
          required_action: merged.kev.required_action || null,
          ransomware: merged.kev.known_ransomware_campaign_use || null,
        }
      : null,
    exploit_maturity: exploitation.exploit_maturity,
    exploit_evidence: exploitation.evidence.length,
    ics: {
      score: ics.score,
      relevant: ics.relevant,
      protocols: ics.protocols,
      device_types: ics.device_types,
      advisories: references.cisa_ics_advisories.map((a) => a.advisory_id),
    },
    patch: {
      status: patch.status,
      fixed_in: patch.fixed_in,
      note: patch.note,
      patch_url: patch.patch_url,
      vendor_guidance: patch.patch_notes,
    },
    weaknesses: merged.cwes.map((id) => `CWE-${id}${catalogs.cwe.get(id) ? ` ${catalogs.cwe.get(id)!.name}` : ''}`),
    attack_patterns: capec.map((c) => c.name),
    layer,
  };
  const doc: CveDocument = {
    cve_id: merged.cve_id,
    bsid: bsid(merged.cve_id, severity ?? bcs.tier),
    title,
    description,
    severity,
    scoring: {
      cvss,
      epss: { score: epssScore, percentile: epssPct, interpretation: epssInterpretation(epssPct) },
      bcs: {
        score: bcs.score,
        tier: bcs.tier,
        factors: {
          kev_flagged: exploitation.kev_flagged,
          poc_available: exploitation.poc_available,
          has_public_exploit: exploitation.has_public_exploit,
          patch_available: patch.patch_available,
          ics_relevance: ics.score,
        },
      },
    },
    exploitation: {
      kev_flagged: exploitation.kev_flagged,
      kev_added_at: kevAdded,
      has_public_exploit: exploitation.has_public_exploit,
      poc_available: exploitation.poc_available,
      exploit_maturity: exploitation.exploit_maturity,
      actively_exploited: exploitation.actively_exploited,
    },
    affected: {
      vendors: aff.vendors.map((v) => v.name),
      vendor_slugs: aff.vendors.map((v) => v.slug),
      products: aff.products,
      primary_vendor: primaryVendor,
      primary_product: aff.primary_product,
      vendor_count: aff.vendors.length,
      device_types: ics.device_types,
      protocols: ics.protocols,
      ics_relevance_score: ics.score,
      ics_relevant: ics.relevant,
    },
    patch,
    classification: {
      cwes,
      attack_vector: cvss.attack_vector,
      attack_complexity: cvss.attack_complexity,
      privileges_required: cvss.privileges_required,
      user_interaction: cvss.user_interaction,
      scope: cvss.scope,
      layer,
      category: classifyCategory(merged.cwes, inputs.categoryText),
    },
    capec,
    sage: groundedAnalysis(facts, now),
    temporal: {
      published_at: merged.published,
      modified_at: merged.modified,
      enriched_at: now,
      kev_added_at: kevAdded,
    },
    references,
    sources: merged.sources,
  };
  return { doc, facts };
}

export interface EnrichOptions {
  /** Analysis the stored record had; kept (marked pending) when the provider fails. */
  previousSage?: SageBlock | null;
  now?: string;
}

/**
 * enrichCve(merged, catalogs, provider?) → CveDocument. Without a provider (or with the grounded one) the
 * analysis is the grounded one. A failing provider never fails enrichment: the record keeps its
 * previous analysis (or the grounded one when it had none) with status 'pending'.
 */
export async function enrichCve(
  merged: MergedCve,
  catalogs: Catalogs,
  provider?: AnalysisProvider,
  opts: EnrichOptions = {},
): Promise<CveDocument> {
  const now = opts.now ?? new Date().toISOString();
  const { doc, facts } = buildCveDocument(merged, catalogs, now);
  if (!provider || provider.name === 'grounded') return doc;
  try {
    doc.sage = await provider.analyze(facts, opts.previousSage ?? null, now);
  } catch {
    doc.sage = { ...(opts.previousSage ?? doc.sage), status: 'pending' };
  }
  return doc;
}
