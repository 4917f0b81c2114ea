// The vendor statements of CSAF advisories (cve_sources), read beside an environment's decisions.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { VendorStatement } from '../domain/records.ts';
import type { StatedAdvisory } from '../domain/vendor-statements.ts';

type Conn = Db | Tx;

/** The vendor statements CSAF advisories make about these CVEs (cve_sources), by CVE, oldest advisory first. */
export async function vendorStatementsOf(db: Conn, cveIds: readonly string[]): Promise<Map<string, StatedAdvisory[]>> {
  const out = new Map<string, StatedAdvisory[]>();
  if (!cveIds.length) return out;
  const r = await sql<{
    cve_id: string;
    advisory_id: string;
    title: string | null;
    url: string | null;
    statements: VendorStatement[];
  }>`
    SELECT cve_id, source_key AS advisory_id, record->'advisory'->>'title' AS title, record->'advisory'->>'url' AS url,
      record->'vendor_statements' AS statements
    FROM cve_sources WHERE source = 'csaf' AND cve_id = ANY(${cveIds}::text[]) AND record->'vendor_statements' IS NOT NULL
    ORDER BY cve_id, record->'advisory'->>'published' NULLS LAST, source_key`.execute(db);
  for (const x of r.rows) {
    const list = out.get(x.cve_id) ?? [];
    list.push({ advisory_id: x.advisory_id, title: x.title ?? x.advisory_id, url: x.url, statements: x.statements });
    out.set(x.cve_id, list);
  }
  return out;
}
