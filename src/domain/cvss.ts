// CVSS vector parsing (v2.0, v3.0, v3.1, v4.0) into the `scoring.cvss` decomposition (spec §2.3).
// Pure. Vectors are validated metric by metric; `formatCvssVector(parseCvssVector(v))` returns the
// canonical vector (metrics in the specification's order), which equals `v` for canonical input.
import type { CvssBlock, Severity } from './cve-document.ts';

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

export class CvssParseError extends Error {
  constructor(vector: string, reason: string) {
    super(`invalid CVSS vector "${vector.length > 120 ? `${vector.slice(0, 120)}…` : vector}": ${reason}`);
    this.name = 'CvssParseError';
  }
}

interface MetricDef {
  key: string;
  values: string[];
  required: boolean;
}

const m = (key: string, values: string, required = false): MetricDef => ({ key, values: values.split(','), required });

const V2: MetricDef[] = [
  m('AV', 'L,A,N', true),
  m('AC', 'H,M,L', true),
  m('Au', 'M,S,N', true),
  m('C', 'N,P,C', true),
  m('I', 'N,P,C', true),
  m('A', 'N,P,C', true),
  m('E', 'U,POC,F,H,ND'),
  m('RL', 'OF,TF,W,U,ND'),
  m('RC', 'UC,UR,C,ND'),
  m('CDP', 'N,L,LM,MH,H,ND'),
  m('TD', 'N,L,M,H,ND'),
  m('CR', 'L,M,H,ND'),
  m('IR', 'L,M,H,ND'),
  m('AR', 'L,M,H,ND'),
];

const V3: MetricDef[] = [
  m('AV', 'N,A,L,P', true),
  m('AC', 'L,H', true),
  m('PR', 'N,L,H', true),
  m('UI', 'N,R', true),
  m('S', 'U,C', true),
  m('C', 'H,L,N', true),
  m('I', 'H,L,N', true),
  m('A', 'H,L,N', true),
  m('E', 'X,U,P,F,H'),
  m('RL', 'X,O,T,W,U'),
  m('RC', 'X,U,R,C'),
  m('CR', 'X,L,M,H'),
  m('IR', 'X,L,M,H'),
  m('AR', 'X,L,M,H'),
  m('MAV', 'X,N,A,L,P'),
  m('MAC', 'X,L,H'),
  m('MPR', 'X,N,L,H'),
  m('MUI', 'X,N,R'),
  m('MS', 'X,U,C'),
  m('MC', 'X,N,L,H'),
  m('MI', 'X,N,L,H'),
  m('MA', 'X,N,L,H'),
];

const V4: MetricDef[] = [
  m('AV', 'N,A,L,P', true),
  m('AC', 'L,H', true),
  m('AT', 'N,P', true),
  m('PR', 'N,L,H', true),
  m('UI', 'N,P,A', true),
  m('VC', 'H,L,N', true),
  m('VI', 'H,L,N', true),
  m('VA', 'H,L,N', true),
  m('SC', 'H,L,N', true),
  m('SI', 'H,L,N', true),
  m('SA', 'H,L,N', true),
  m('E', 'X,A,P,U'),
  m('CR', 'X,H,M,L'),
  m('IR', 'X,H,M,L'),
  m('AR', 'X,H,M,L'),
  m('MAV', 'X,N,A,L,P'),
  m('MAC', 'X,L,H'),
  m('MAT', 'X,N,P'),
  m('MPR', 'X,N,L,H'),
  m('MUI', 'X,N,P,A'),
  m('MVC', 'X,H,L,N'),
  m('MVI', 'X,H,L,N'),
  m('MVA', 'X,H,L,N'),
  m('MSC', 'X,H,L,N'),
  m('MSI', 'X,S,H,L,N'),
  m('MSA', 'X,S,H,L,N'),
  m('S', 'X,N,P'),
  m('AU', 'X,N,Y'),
  m('R', 'X,A,U,I'),
  m('V', 'X,D,C'),
  m('RE', 'X,L,M,H'),
  m('U', 'X,Clear,Green,Amber,Red'),
];

export const CVSS_METRICS: Record<CvssVersion, MetricDef[]> = { '2.0': V2, '3.0': V3, '3.1': V3, '4.0': V4 };
const METRIC_INDEX: Record<CvssVersion, Map<string, MetricDef>> = {
  '2.0': new Map(V2.map((d) => [d.key, d])),
  '3.0': new Map(V3.map((d) => [d.key, d])),
  '3.1': new Map(V3.map((d) => [d.key, d])),
  '4.0': new Map(V4.map((d) => [d.key, d])),
};

export interface ParsedCvss {
  version: CvssVersion;
  /** Metric key → value, as given. */
  metrics: Record<string, string>;
}

export function parseCvssVector(vector: string): ParsedCvss {
  if (typeof vector !== 'string' || vector.trim() === '') throw new CvssParseError(String(vector), 'empty vector');
  let body = vector.trim();
  let version: CvssVersion;
  const pre = /^CVSS:(\d\.\d)\//.exec(body);
  if (pre) {
    if (pre[1] !== '3.0' && pre[1] !== '3.1' && pre[1] !== '4.0')
      throw new CvssParseError(vector, `unsupported version prefix CVSS:${pre[1]}`);
    version = pre[1];
    body = body.slice(pre[0].length);
  } else if (/^\(?AV:[LAN]\/AC:/.test(body)) {
    version = '2.0';
    if (body.startsWith('(')) {
      if (!body.endsWith(')')) throw new CvssParseError(vector, 'unbalanced parenthesis');
      body = body.slice(1, -1);
    }
  } else {
    throw new CvssParseError(vector, 'missing "CVSS:3.x/" or "CVSS:4.0/" prefix and not a CVSS v2 base vector');
  }
  const defs = CVSS_METRICS[version];
  const byKey = METRIC_INDEX[version];
  const metrics: Record<string, string> = {};
  for (const part of body.split('/')) {
    const idx = part.indexOf(':');
    if (idx <= 0) throw new CvssParseError(vector, `malformed metric "${part}" (expected KEY:VALUE)`);
    const key = part.slice(0, idx);
    const value = part.slice(idx + 1);
    const def = byKey.get(key);
    if (!def) throw new CvssParseError(vector, `unknown metric "${key}" for CVSS ${version}`);
    if (key in metrics) throw new CvssParseError(vector, `metric "${key}" given twice`);
    if (!def.values.includes(value))
      throw new CvssParseError(
        vector,
        `metric ${key} has invalid value "${value}" (allowed: ${def.values.join(', ')})`,
      );
    metrics[key] = value;
  }
  const missing = defs.filter((d) => d.required && !(d.key in metrics)).map((d) => d.key);
  if (missing.length) throw new CvssParseError(vector, `missing base metric(s) ${missing.join(', ')}`);
  return { version, metrics };
}

/** Canonical vector string: prefix (none for v2) and the given metrics in the specification's order. */
export function formatCvssVector(p: ParsedCvss): string {
  const body = CVSS_METRICS[p.version]
    .filter((d) => d.key in p.metrics)
    .map((d) => `${d.key}:${p.metrics[d.key]}`)
    .join('/');
  return p.version === '2.0' ? body : `CVSS:${p.version}/${body}`;
}

// ---- scores (v2 and v3.x base scores; v4.0 scores are taken from the source) ----

function roundUp31(x: number): number {
  const i = Math.round(x * 100000);
  return i % 10000 === 0 ? i / 100000 : (Math.floor(i / 10000) + 1) / 10;
}
const roundUp30 = (x: number) => Math.ceil(x * 10) / 10;

export function cvss3BaseScore(p: ParsedCvss): number {
  const v = p.metrics;
  const changed = v.S === 'C';
  const av = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 }[v.AV]!;
  const ac = { L: 0.77, H: 0.44 }[v.AC]!;
  const pr = changed ? { N: 0.85, L: 0.68, H: 0.5 }[v.PR]! : { N: 0.85, L: 0.62, H: 0.27 }[v.PR]!;
  const ui = { N: 0.85, R: 0.62 }[v.UI]!;
  const cia = (x: string) => ({ H: 0.56, L: 0.22, N: 0 })[x]!;
  const iss = 1 - (1 - cia(v.C)) * (1 - cia(v.I)) * (1 - cia(v.A));
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15) : 6.42 * iss;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: CVSS 3.0 and 3.1 rounding agree on all 2,592 base vectors (checked), so either function gives the same score
  const roundUp = p.version === '3.0' ? roundUp30 : roundUp31;
  return changed
    ? roundUp(Math.min(1.08 * (impact + exploitability), 10))
    : roundUp(Math.min(impact + exploitability, 10));
}

export function cvss2BaseScore(p: ParsedCvss): number {
  const v = p.metrics;
  const av = { L: 0.395, A: 0.646, N: 1.0 }[v.AV]!;
  const ac = { H: 0.35, M: 0.61, L: 0.71 }[v.AC]!;
  const au = { M: 0.45, S: 0.56, N: 0.704 }[v.Au]!;
  const cia = (x: string) => ({ N: 0, P: 0.275, C: 0.66 })[x]!;
  const impact = 10.41 * (1 - (1 - cia(v.C)) * (1 - cia(v.I)) * (1 - cia(v.A)));
  const exploitability = 20 * av * ac * au;
  const f = impact === 0 ? 0 : 1.176;
  return Math.round((0.6 * impact + 0.4 * exploitability - 1.5) * f * 10) / 10;
}

/** Base score computed from the vector where the method is closed-form (v2, v3.x); null for v4.0. */
export function computeBaseScore(p: ParsedCvss): number | null {
  if (p.version === '2.0') return cvss2BaseScore(p);
  if (p.version === '3.0' || p.version === '3.1') return cvss3BaseScore(p);
  return null;
}

/** Severity from the score, CVSS v3.1 bands (docs/enrichment.md): a score of 0 reads as LOW. */
export function severityFromScore(score: number): Severity {
  if (score >= 9) return 'CRITICAL';
  if (score >= 7) return 'HIGH';
  if (score >= 4) return 'MEDIUM';
  return 'LOW';
}

const AV_NAMES: Record<string, string> = { N: 'NETWORK', A: 'ADJACENT', L: 'LOCAL', P: 'PHYSICAL' };
const LH: Record<string, string> = { L: 'LOW', H: 'HIGH', M: 'MEDIUM' };
const NLH: Record<string, string> = { N: 'NONE', L: 'LOW', H: 'HIGH' };
const V2_IMPACT: Record<string, string> = { N: 'NONE', P: 'PARTIAL', C: 'COMPLETE' };

/** The `scoring.cvss` block from a vector and (optionally) the source's base score. */
export function cvssBlock(vector: string, sourceScore: number | null): CvssBlock {
  const p = parseCvssVector(vector);
  const v = p.metrics;
  const score = sourceScore ?? computeBaseScore(p);
  const block: CvssBlock = {
    score,
    vector: formatCvssVector(p),
    version: p.version,
    severity: score === null ? null : severityFromScore(score),
    attack_vector: AV_NAMES[v.AV] ?? null,
    attack_complexity: LH[v.AC] ?? null,
    privileges_required: null,
    user_interaction: null,
    scope: null,
    confidentiality_impact: null,
    integrity_impact: null,
    availability_impact: null,
  };
  if (p.version === '2.0') {
    block.confidentiality_impact = V2_IMPACT[v.C];
    block.integrity_impact = V2_IMPACT[v.I];
    block.availability_impact = V2_IMPACT[v.A];
  } else if (p.version === '4.0') {
    block.privileges_required = NLH[v.PR];
    block.user_interaction = { N: 'NONE', P: 'PASSIVE', A: 'ACTIVE' }[v.UI]!;
    block.confidentiality_impact = NLH[v.VC];
    block.integrity_impact = NLH[v.VI];
    block.availability_impact = NLH[v.VA];
  } else {
    block.privileges_required = NLH[v.PR];
    block.user_interaction = { N: 'NONE', R: 'REQUIRED' }[v.UI]!;
    block.scope = { U: 'UNCHANGED', C: 'CHANGED' }[v.S]!;
    block.confidentiality_impact = NLH[v.C];
    block.integrity_impact = NLH[v.I];
    block.availability_impact = NLH[v.A];
  }
  return block;
}

export const EMPTY_CVSS: CvssBlock = {
  score: null,
  vector: null,
  version: null,
  severity: null,
  attack_vector: null,
  attack_complexity: null,
  privileges_required: null,
  user_interaction: null,
  scope: null,
  confidentiality_impact: null,
  integrity_impact: null,
  availability_impact: null,
};
