// VEX export of an environment's triage decisions (docs/vex.md): OpenVEX 0.2.0, streamed statement by statement
// (the decisions are read in pages, so memory stays flat whatever their number). Products are the environment's
// assets, with their CPE 2.3 name where the asset gives one.
import type { Db } from '../store/db.ts';
import { environmentExists } from '../store/windows.ts';
import { decisionsAfter, environmentProducts, type DecisionRow } from '../store/triage.ts';

/** Decisions read per page while streaming. */
const PAGE = 1000;

type Product = Awaited<ReturnType<typeof environmentProducts>>[number];

/** The IRI naming one asset of an environment in exported documents (and read back by an import). */
export function assetIri(publicUrl: string, environmentId: number, assetId: string): string {
  return `${publicUrl.replace(/\/$/, '')}/environments/${environmentId}/assets/${encodeURIComponent(assetId)}`;
}

/** An OpenVEX component for an asset: its IRI, and its CPE 2.3 name when it has one. */
function component(publicUrl: string, environmentId: number, p: Product): Record<string, unknown> {
  const c: Record<string, unknown> = { '@id': assetIri(publicUrl, environmentId, p.asset_id) };
  if (p.cpe && p.cpe.startsWith('cpe:2.3:')) c.identifiers = { cpe23: p.cpe };
  return c;
}

/** One decision as an OpenVEX statement (its fields are CISA's, as OpenVEX's are). */
export function openVexStatement(d: DecisionRow, products: Record<string, unknown>[]): Record<string, unknown> {
  const s: Record<string, unknown> = {
    vulnerability: { '@id': `https://www.cve.org/CVERecord?id=${d.cve_id}`, name: d.cve_id },
    timestamp: new Date(d.updated_at).toISOString(),
    status: d.status,
  };
  if (products.length) s.products = products;
  if (d.justification) s.justification = d.justification;
  if (d.impact_statement) s.impact_statement = d.impact_statement;
  if (d.action_statement) s.action_statement = d.action_statement + (d.due_date ? ` (due ${d.due_date})` : '');
  if (d.action_statement) s.action_statement_timestamp = new Date(d.updated_at).toISOString();
  return s;
}

export function createVexService(db: Db, publicUrl: string) {
  return {
    /**
     * The environment's decisions as one OpenVEX 0.2.0 document, in chunks of text; 'environment' when the
     * organization has no such environment, 'empty' when it holds no decision (OpenVEX needs one statement).
     */
    async openVex(org: { orgId: number; orgName: string }, environmentId: number, now: Date): Promise<AsyncGenerator<string> | 'environment' | 'empty'> {
      if (!(await environmentExists(db, org.orgId, environmentId))) return 'environment';
      const first = await decisionsAfter(db, org.orgId, environmentId, '', PAGE);
      if (!first.length) return 'empty';
      const products = await environmentProducts(db, org.orgId, environmentId);
      const byId = new Map(products.map((p) => [p.asset_id, component(publicUrl, environmentId, p)]));
      const all = [...byId.values()];
      const head = {
        '@context': 'https://openvex.dev/ns/v0.2.0',
        '@id': `${publicUrl.replace(/\/$/, '')}/environments/${environmentId}/vex/openvex/${now.getTime()}`,
        author: org.orgName,
        role: 'Document Creator',
        timestamp: now.toISOString(),
        version: 1,
        tooling: 'Vulnintel',
      };
      return (async function* () {
        yield `${JSON.stringify(head).slice(0, -1)},"statements":[`;
        let page = first;
        let n = 0;
        while (page.length) {
          for (const d of page) {
            const ps = d.asset_ids.length ? d.asset_ids.map((a) => byId.get(a)).filter((x): x is Record<string, unknown> => x !== undefined) : all;
            yield (n++ ? ',' : '') + JSON.stringify(openVexStatement(d, ps));
          }
          if (page.length < PAGE) break;
          page = await decisionsAfter(db, org.orgId, environmentId, page[page.length - 1].cve_id, PAGE);
        }
        yield ']}';
      })();
    },
  };
}

export type VexService = ReturnType<typeof createVexService>;
