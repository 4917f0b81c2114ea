// Per-CVE records from MSRC documents for the CVE corpus (issue 5 "Microsoft's vulnerabilities also feed the
// CVE corpus"). The record has the shape of the ingest pipeline's `CveSourceRecord` (src/ingest/types.ts on
// the ingest branch) with `source: 'msrc'`, so the merge folds it in under the same precedence
// (NVD, CSAF, MSRC, KEV). Nothing is constructed: the advisory URL is the one the document links.
// Documented in docs/windows-engine.md ("MSRC records for the CVE corpus").
import type { MsrcDocument, MsrcVulnerability } from '../domain/windows/msrc-types.ts';
import { msrcDateToIso } from './msrc.ts';

export interface MsrcCvssMetric {
  version: '2.0' | '3.0' | '3.1' | '4.0';
  vector: string;
  score: number | null;
  scored_by: string | null;
  type: string | null;
}

export interface MsrcCveRecord {
  source: 'msrc';
  source_key: string;
  cve_id: string;
  description: string | null;
  title: string | null;
  published: string | null;
  modified: string | null;
  cvss: MsrcCvssMetric[];
  cwes: number[];
  affected: { vendor: string; product: string | null; origin: 'msrc'; cpe_part: null; version: null }[];
  references: { url: string; tags: string[]; provided_by: string }[];
  assigner: string | null;
  status: string | null;
  msrc: { exploited: boolean; publicly_disclosed: boolean | null; severity: string | null };
}

const SEVERITY_ORDER = ['Critical', 'Important', 'Moderate', 'Low'];

function stripHtml(s: string): string {
  return s.replace(/<[^>]+>/g, ' ').replace(/&nbsp;/g, ' ').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/\s+/g, ' ').trim();
}

function cvssOf(v: MsrcVulnerability): MsrcCvssMetric[] {
  // MSRC scores per product; the record keeps the highest base score with its vector (as stated, with the
  // temporal metrics MSRC appends).
  let best: { score: number; vector: string } | null = null;
  for (const s of v.scoreSets) {
    if (s.baseScore === null || !s.vector) continue;
    if (!best || s.baseScore > best.score) best = { score: s.baseScore, vector: s.vector };
  }
  if (!best) return [];
  const m = /^CVSS:(3\.0|3\.1|4\.0)\//.exec(best.vector);
  if (!m) return [];
  return [{ version: m[1] as MsrcCvssMetric['version'], vector: best.vector, score: best.score, scored_by: 'Microsoft', type: null }];
}

function revisionDates(v: MsrcVulnerability): { first: string | null; last: string | null } {
  const dates = v.revisions.map((r) => msrcDateToIso(r.date)).filter((d): d is string => d !== null).sort();
  const one = v.revisions.find((r) => r.number === '1.0');
  return { first: (one ? msrcDateToIso(one.date) : null) ?? dates[0] ?? null, last: dates[dates.length - 1] ?? null };
}

/** Records for every CVE of one document (ADV advisories and malformed ids are skipped). */
export function msrcCveRecords(doc: MsrcDocument): MsrcCveRecord[] {
  const out: MsrcCveRecord[] = [];
  for (const v of doc.vulnerabilities) {
    if (!/^CVE-\d{4}-\d{4,}$/.test(v.cve)) continue;
    const exploit = v.threats.find((t) => t.type === 'Exploit Status')?.description ?? '';
    const severities = new Set(v.threats.filter((t) => t.type === 'Severity').map((t) => t.description));
    const severity = SEVERITY_ORDER.find((s) => severities.has(s)) ?? null;
    const desc = v.notes.find((n) => n.type === 'Description' && n.text.trim());
    const pids = new Set(v.knownAffected);
    for (const r of v.remediations) if (r.type === 'Vendor Fix') for (const p of r.productIds) pids.add(p);
    const names = [...new Set([...pids].map((p) => doc.products.get(p)).filter((n): n is string => !!n).map((n) => n.replace(/\s+/g, ' ').trim()))].sort();
    const cna = v.notes.find((n) => n.type === 'CNA')?.text.trim() || null;
    const { first, last } = revisionDates(v);
    const url = doc.advisoryUrls.get(v.cve);
    const disclosed = /Publicly Disclosed:\s*(Yes|No)/i.exec(exploit);
    out.push({
      source: 'msrc',
      source_key: '',
      cve_id: v.cve,
      // MSRC leaves the Description note empty for most Windows CVEs; its title is then the vendor's own
      // one-line statement of the flaw, and the corpus keeps only CVEs with a description.
      description: (desc ? stripHtml(desc.text) || null : null) ?? (v.title || null),
      title: v.title || null,
      published: first ?? doc.initialReleaseDate,
      modified: last ?? doc.currentReleaseDate,
      cvss: cvssOf(v),
      cwes: [...new Set(v.cwes.map((c) => Number(/^CWE-(\d+)$/.exec(c.id)?.[1])).filter((n) => Number.isInteger(n) && n > 0))],
      affected: names.map((product) => ({ vendor: 'Microsoft', product, origin: 'msrc' as const, cpe_part: null, version: null })),
      references: url ? [{ url, tags: ['Vendor Advisory'], provided_by: 'msrc' }] : [],
      assigner: cna,
      status: null,
      msrc: {
        exploited: /Exploited:\s*Yes/i.test(exploit),
        publicly_disclosed: disclosed ? disclosed[1].toLowerCase() === 'yes' : null,
        severity,
      },
    });
  }
  return out;
}
