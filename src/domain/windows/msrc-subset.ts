// The Windows part of an MSRC document: what the evaluation index needs, kept in the database so the index
// is rebuilt at start without the full documents (2–8 MB of XML each, mostly other products).
import type { MsrcDocument } from './msrc-types.ts';
import { WINDOWS_PRODUCTS } from './products.ts';

export function windowsSubset(doc: MsrcDocument): MsrcDocument {
  const isWin = (p: string) => WINDOWS_PRODUCTS.has(p);
  const vulnerabilities = [];
  const cves = new Set<string>();
  for (const v of doc.vulnerabilities) {
    const fixes = v.remediations
      .filter((r) => r.type === 'Vendor Fix' && r.productIds.some(isWin))
      .map((r) => ({ ...r, productIds: r.productIds.filter(isWin) }));
    const affected = v.knownAffected.filter(isWin);
    if (fixes.length === 0 && affected.length === 0) continue;
    cves.add(v.cve);
    vulnerabilities.push({
      cve: v.cve,
      title: v.title,
      notes: v.notes.filter((n) => n.type === 'Description' && n.text.trim() !== ''),
      cwes: v.cwes,
      knownAffected: affected,
      threats: v.threats
        .filter((t) => t.type === 'Exploit Status' || (t.type === 'Severity' && t.productIds.some(isWin)))
        .map((t) => ({ ...t, productIds: t.productIds.filter(isWin) })),
      scoreSets: v.scoreSets
        .filter((s) => s.productIds.some(isWin))
        .map((s) => ({ ...s, productIds: s.productIds.filter(isWin) })),
      remediations: fixes,
      revisions: v.revisions.map((r) => ({ number: r.number, date: r.date, description: '' })),
    });
  }
  return {
    id: doc.id,
    title: doc.title,
    initialReleaseDate: doc.initialReleaseDate,
    currentReleaseDate: doc.currentReleaseDate,
    revisionNumber: doc.revisionNumber,
    products: new Map([...doc.products].filter(([id]) => isWin(id))),
    vulnerabilities,
    advisoryUrls: new Map([...doc.advisoryUrls].filter(([cve]) => cves.has(cve))),
  };
}
