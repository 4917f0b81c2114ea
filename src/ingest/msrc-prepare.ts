// An MSRC document's Windows subset as the Windows tables store it (store/windows.ts), made from the parsed
// document with no database: in an import it is made on the feed thread, where the document is parsed.
import { createHash } from 'node:crypto';
import type { StoredMsrcDocument } from '../store/windows.ts';
import type { MsrcDocument } from '../domain/windows/msrc-types.ts';
import { windowsSubset } from '../domain/windows/msrc-subset.ts';
import { classifySubType, docMonth, normaliseKb } from '../domain/windows/build.ts';
import { encodeMsrcPayload } from './msrc.ts';

/** The per-CVE-product fix rows of a (subset) document. */
export function msrcFixRows(doc: MsrcDocument): StoredMsrcDocument['fixes'] {
  const month = docMonth(doc.id);
  const rows: StoredMsrcDocument['fixes'] = [];
  for (const v of doc.vulnerabilities) {
    const exploited = /Exploited:\s*Yes/i.test(v.threats.find((t) => t.type === 'Exploit Status')?.description ?? '');
    const sev = new Map<string, string>();
    for (const t of v.threats) if (t.type === 'Severity') for (const p of t.productIds) sev.set(p, t.description);
    for (const r of v.remediations) {
      if (r.type !== 'Vendor Fix') continue;
      for (const p of r.productIds) {
        rows.push({
          cve_id: v.cve,
          product_id: p,
          kb: normaliseKb(r.description),
          fixed_build: r.fixedBuild?.replace(/[\u200b\ufeff]/g, '').trim() || null,
          subtype: r.subType ?? classifySubType(null),
          supercedence: r.supercedence,
          severity: sev.get(p) ?? null,
          exploited,
          release_month: month,
        });
      }
    }
  }
  return rows;
}

/**
 * A parsed document as the Windows tables store it, but for its address: its Windows subset (payload and fix
 * rows) and the hash that tells a revision. Pure work with no database, so it is done where the document is
 * parsed (the feed thread, in an import).
 */
export type PreparedMsrcDocument = Omit<StoredMsrcDocument, 'cvrf_url'>;

export function prepareMsrcDocument(doc: MsrcDocument): PreparedMsrcDocument {
  const subset = windowsSubset(doc);
  const payload = encodeMsrcPayload(subset);
  const sha256 = createHash('sha256')
    .update(JSON.stringify({ ...subset, products: [...subset.products], advisoryUrls: [...subset.advisoryUrls] }))
    .digest('hex');
  return {
    id: doc.id,
    title: doc.title,
    initial_release_date: doc.initialReleaseDate,
    revision_date: doc.currentReleaseDate,
    revision_number: doc.revisionNumber,
    sha256,
    vulnerabilities: doc.vulnerabilities.length,
    payload,
    fixes: msrcFixRows(subset),
  };
}
