// The analyst block (`sage`, spec §2.3) behind one interface. The default provider is grounded: it writes
// only sentences built from the record's own fields, and its confidence is the share of its sentences
// that are traceable to a source field (general advice counts as not traceable). An OpenAI-compatible
// provider is used only when configured; it goes through an injectable fetch. Pure apart from that fetch.
import type { ConfidenceTier, SageBlock } from './cve-document.ts';
import { CVE_ID_BODY } from './cve-id.ts';
import { productPhrase } from './title.ts';
import { isRecord } from './is-record.ts';

/** Fact-like tokens a sentence must take from the facts: ids, versions, percentages. */
const FACT_TOKENS = new RegExp(
  String.raw`${CVE_ID_BODY}|CWE-\d+|ICSA-\d{2}-\d{3}-\d{2}|\bv?\d+(?:\.\d+)+\b|\b\d+(?:\.\d+)?%`,
  'gi',
);

export interface AnalysisFacts {
  cve_id: string;
  title: string;
  description: string;
  vendor: string | null;
  product: string | null;
  cvss: {
    score: number | null;
    severity: string | null;
    version: string | null;
    attack_vector: string | null;
    privileges_required: string | null;
    user_interaction: string | null;
    availability_impact: string | null;
  };
  epss: { score: number | null; percentile: number | null; interpretation: string | null };
  kev: { added: string | null; required_action: string | null; ransomware: string | null } | null;
  exploit_maturity: string;
  exploit_evidence: number;
  ics: { score: number; relevant: boolean; protocols: string[]; device_types: string[]; advisories: string[] };
  patch: {
    status: string;
    fixed_in: { product: string; version: string } | null;
    note: string | null;
    patch_url: string | null;
    vendor_guidance: string | null;
  };
  weaknesses: string[]; // "CWE-78 Improper Neutralization …"
  attack_patterns: string[]; // CAPEC names
  layer: string;
}

export interface AnalysisProvider {
  readonly name: string;
  analyze(facts: AnalysisFacts, previous: SageBlock | null, now: string): Promise<SageBlock>;
}

export function confidenceTier(score: number): ConfidenceTier {
  if (score >= 0.9) return 'SOVEREIGN_AUDIT_PASS';
  if (score >= 0.75) return 'HIGH_CONFIDENCE';
  if (score >= 0.5) return 'MODERATE';
  return 'LOW';
}

interface Claim {
  text: string;
  traceable: boolean;
}

const pct = (x: number) => `${(Math.round(x * 10000) / 100).toString()}%`;
const lower = (s: string) => s.toLowerCase().replace(/_/g, ' ');

function summaryClaims(f: AnalysisFacts): Claim[] {
  const c: Claim[] = [];
  const target = productPhrase(f.vendor, f.product);
  // Stryker disable next-line Regex: a weakness reads "CWE-<id> <name>", and no CWE name holds another CWE id
  const weakness = f.weaknesses[0]?.replace(/^CWE-\d+\s*/, '') ?? null;
  if (f.cvss.score !== null) {
    c.push({
      text: `${f.cve_id} is rated ${f.cvss.severity} (CVSS ${f.cvss.version} base score ${f.cvss.score})${weakness ? `: ${weakness.toLowerCase()}` : ''}${target ? ` in ${target}` : ''}.`,
      traceable: true,
    });
  } else {
    c.push({
      text: `${f.cve_id}${target ? ` affects ${target}` : ''}; its sources give no CVSS score.`,
      traceable: true,
    });
  }
  if (f.cvss.attack_vector) {
    const pr = f.cvss.privileges_required
      ? f.cvss.privileges_required === 'NONE'
        ? 'without privileges'
        : `with ${lower(f.cvss.privileges_required)} privileges`
      : null;
    const ui = f.cvss.user_interaction
      ? f.cvss.user_interaction === 'NONE'
        ? 'without user interaction'
        : 'with user interaction'
      : null;
    c.push({
      text: `An attacker needs ${lower(f.cvss.attack_vector)} access${pr ? `, ${pr}` : ''}${ui ? `, ${ui}` : ''}.`,
      traceable: true,
    });
  }
  if (f.kev) {
    c.push({
      text: `CISA lists it as known exploited since ${f.kev.added} (exploit maturity WEAPONIZED)${f.kev.ransomware === 'Known' ? ', with known ransomware use' : ''}.`,
      traceable: true,
    });
  } else if (f.exploit_maturity === 'FUNCTIONAL') {
    c.push({
      text: `A functional public exploit is referenced (${f.exploit_evidence} source${f.exploit_evidence === 1 ? '' : 's'}).`,
      traceable: true,
    });
  } else if (f.exploit_maturity === 'POC' && f.exploit_evidence === 0) {
    // No reference shows it: the maturity comes from CISA-ADP's SSVC decision (Exploitation: poc) alone.
    c.push({ text: "CISA's SSVC assessment reports a public proof of concept.", traceable: true });
  } else if (f.exploit_maturity === 'POC') {
    c.push({
      text: `A proof of concept is referenced (${f.exploit_evidence} source${f.exploit_evidence === 1 ? '' : 's'}).`,
      traceable: true,
    });
  } else {
    c.push({ text: 'No public exploit or proof of concept is referenced.', traceable: true });
  }
  if (f.epss.score !== null && f.epss.percentile !== null) {
    c.push({
      text: `EPSS estimates a ${pct(f.epss.score)} probability of exploitation in the next 30 days (${f.epss.interpretation?.toLowerCase()}).`,
      traceable: true,
    });
  }
  return c;
}

function icsClaims(f: AnalysisFacts): Claim[] {
  const c: Claim[] = [];
  if (f.ics.advisories.length)
    c.push({ text: `CISA ICS advisory ${f.ics.advisories.join(', ')} names this CVE.`, traceable: true });
  if (f.ics.protocols.length) c.push({ text: `The record mentions ${f.ics.protocols.join(', ')}.`, traceable: true });
  if (f.ics.device_types.length) c.push({ text: `Device types: ${f.ics.device_types.join(', ')}.`, traceable: true });
  c.push({
    text: `ICS relevance is ${f.ics.score} (${f.ics.relevant ? 'ICS-relevant' : 'not ICS-relevant'}); layer ${f.layer}.`,
    traceable: true,
  });
  if (f.ics.relevant && f.cvss.availability_impact === 'HIGH') {
    c.push({
      text: 'The availability impact is HIGH, which in a control system can mean loss of view or loss of control.',
      traceable: false,
    });
  }
  if (!f.ics.relevant) {
    c.push({ text: 'Treat it as an IT issue unless the product runs inside the control network.', traceable: false });
  }
  return c;
}

function remediationClaims(f: AnalysisFacts): Claim[] {
  const c: Claim[] = [];
  if (f.patch.fixed_in)
    c.push({
      text: `Update ${f.patch.fixed_in.product} to ${f.patch.fixed_in.version} or later, as the advisory states.`,
      traceable: true,
    });
  if (f.patch.status === 'varies_by_product')
    c.push({
      text: 'Fixed versions differ per product; check each asset with POST /api/v1/assets/correlate-cves.',
      traceable: true,
    });
  if (f.patch.vendor_guidance) c.push({ text: `Vendor guidance: ${f.patch.vendor_guidance}`, traceable: true });
  if (f.kev?.required_action) c.push({ text: `CISA required action: ${f.kev.required_action}`, traceable: true });
  if (f.patch.status === 'patched' && f.patch.patch_url)
    c.push({ text: `A fix is referenced at ${f.patch.patch_url}.`, traceable: true });
  else if (f.patch.status === 'patched')
    c.push({ text: 'A known patch or fix source is referenced.', traceable: true });
  if (f.patch.status === 'unknown' && !f.patch.fixed_in) {
    c.push({
      text: 'No fix is referenced by the sources; restrict access to the affected product until the vendor publishes one.',
      traceable: false,
    });
  }
  c.push({
    text: 'Limit network exposure of the affected systems and monitor them for exploitation attempts.',
    traceable: false,
  });
  return c;
}

function joinClaims(cs: Claim[]): string {
  return cs.map((x) => x.text).join(' ');
}

export const GROUNDED_MODEL = 'vulnintel-grounded-1';

/** The default provider: text only from the record's facts; confidence = traceable share of sentences. */
export function groundedAnalysis(f: AnalysisFacts, now: string): SageBlock {
  const s = summaryClaims(f);
  const i = icsClaims(f);
  const r = remediationClaims(f);
  const all = [...s, ...i, ...r];
  const score = Math.round((all.filter((x) => x.traceable).length / all.length) * 100) / 100;
  return {
    model: GROUNDED_MODEL,
    tier: 'full',
    executive_summary: joinClaims(s),
    ics_context: joinClaims(i),
    remediation_guidance: joinClaims(r),
    confidence_score: score,
    confidence_tier: confidenceTier(score),
    status: 'ready',
    generated_at: now,
  };
}

export const groundedProvider: AnalysisProvider = {
  name: 'grounded',
  analyze: async (facts, _previous, now) => groundedAnalysis(facts, now),
};

// ---- optional OpenAI-compatible provider ----

export interface OpenAiProviderConfig {
  baseUrl: string; // e.g. https://api.example.com/v1
  model: string;
  apiKey: string | null;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Share of sentences whose numbers, versions and ids all occur in the facts (text traceable to fields). */
export function traceableShare(text: string, facts: AnalysisFacts): number {
  const haystack = JSON.stringify(facts).toLowerCase();
  // Stryker disable MethodExpression,Regex: the pieces are trimmed: splitting at one whitespace or at a run gives the same sentences
  const sentences = text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
  // Stryker restore MethodExpression,Regex
  if (!sentences.length) return 0;
  let ok = 0;
  for (const s of sentences) {
    const tokens = s.match(FACT_TOKENS) ?? [];
    // Stryker disable next-line Regex: a figure token holds % only at its end
    const grounded = tokens.every((t) => haystack.includes(t.toLowerCase().replace(/%$/, '')));
    const mentionsFact =
      tokens.length > 0 ||
      [facts.vendor, facts.product, facts.cve_id].some((x) => x && s.toLowerCase().includes(x.toLowerCase()));
    if (grounded && mentionsFact) ok++;
  }
  return Math.round((ok / sentences.length) * 100) / 100;
}

export function createOpenAiProvider(cfg: OpenAiProviderConfig): AnalysisProvider {
  const doFetch = cfg.fetch ?? fetch;
  return {
    name: `openai:${cfg.model}`,
    async analyze(facts, _previous, now) {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), cfg.timeoutMs ?? 30_000);
      try {
        const res = await doFetch(`${cfg.baseUrl.replace(/\/$/, '')}/chat/completions`, {
          method: 'POST',
          signal: ctl.signal,
          headers: {
            'content-type': 'application/json',
            ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: cfg.model,
            temperature: 0,
            response_format: { type: 'json_object' },
            messages: [
              {
                role: 'system',
                content:
                  'You are an ICS/OT vulnerability analyst. Use only the facts given. Reply with a JSON object with the string fields executive_summary, ics_context and remediation_guidance.',
              },
              { role: 'user', content: JSON.stringify(facts) },
            ],
          }),
        });
        if (!res.ok) throw new Error(`analysis provider answered HTTP ${res.status}`);
        const body: unknown = await res.json();
        const choice: unknown = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
        const message = isRecord(choice) && isRecord(choice.message) ? choice.message : {};
        const content = message.content;
        if (typeof content !== 'string') throw new Error('analysis provider returned no message content');
        const parsed: unknown = JSON.parse(content);
        const reply = isRecord(parsed) ? parsed : {};
        const field = (k: 'executive_summary' | 'ics_context' | 'remediation_guidance'): string => {
          const v = reply[k];
          if (typeof v !== 'string' || !v.trim()) throw new Error(`analysis provider omitted ${k}`);
          return v;
        };
        const executive = field('executive_summary');
        const ics = field('ics_context');
        const guidance = field('remediation_guidance');
        const text = [executive, ics, guidance].join(' ');
        const score = traceableShare(text, facts);
        return {
          model: cfg.model,
          tier: 'full',
          executive_summary: executive.trim(),
          ics_context: ics.trim(),
          remediation_guidance: guidance.trim(),
          confidence_score: score,
          confidence_tier: confidenceTier(score),
          status: 'ready',
          generated_at: now,
        };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
