// VEX export of an environment's triage decisions (docs/vex.md): OpenVEX 0.2.0, CSAF 2.0 (VEX profile) and
// CycloneDX 1.6, each streamed statement by statement (the decisions are read in pages, so memory stays flat whatever
// their number). Products are the environment's assets, with their CPE 2.3 name where the asset gives one.
import { randomUUID } from 'node:crypto';
import { createVexImportService } from './vex-import.ts';
import type { Db } from '../store/db.ts';
import { decisionsAfter, type DecisionRow } from '../store/triage-decisions.ts';
import { environmentName, environmentProducts } from '../store/triage-references.ts';
import {
  CISA_JUSTIFICATION_PROPERTY,
  CSAF_STATUS,
  CYCLONEDX_JUSTIFICATION,
  CYCLONEDX_STATE,
  actionText,
  exportedCpe,
} from '../domain/vex-formats.ts';

/** Decisions read per page while streaming. */
const PAGE = 1000;

export const VEX_FORMATS = ['openvex', 'csaf', 'cyclonedx'] as const;
export type VexFormat = (typeof VEX_FORMATS)[number];

type Product = Awaited<ReturnType<typeof environmentProducts>>[number];
type Json = Record<string, unknown>;

const base = (publicUrl: string) => publicUrl.replace(/\/$/, '');

/** The IRI naming one asset of an environment in exported documents (and read back by an import). */
export function assetIri(publicUrl: string, environmentId: number, assetId: string): string {
  return `${base(publicUrl)}/environments/${environmentId}/assets/${encodeURIComponent(assetId)}`;
}

/** The IRI naming an environment as a whole (CycloneDX: what an environment-wide decision affects). */
export function environmentIri(publicUrl: string, environmentId: number): string {
  return `${base(publicUrl)}/environments/${environmentId}`;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const cveUrl = (cve: string) => `https://www.cve.org/CVERecord?id=${cve}`;

/** One decision as an OpenVEX statement (its fields are CISA's, as OpenVEX's are). */
export function openVexStatement(d: DecisionRow, products: Json[]): Json {
  const s: Json = {
    vulnerability: { '@id': cveUrl(d.cve_id), name: d.cve_id },
    timestamp: iso(d.updated_at),
    status: d.status,
  };
  if (products.length) s.products = products;
  if (d.justification) s.justification = d.justification;
  if (d.impact_statement) s.impact_statement = d.impact_statement;
  if (d.action_statement) {
    s.action_statement = actionText(d.action_statement, d.due_date);
    s.action_statement_timestamp = iso(d.updated_at);
  }
  return s;
}

/**
 * One decision as a CSAF 2.0 vulnerability of the VEX profile: its status list names the products (CSAF product
 * ids), the justification is a flag, the impact statement a threat of category impact, the action statement a
 * remediation of category mitigation. Every vulnerability carries a note (the profile asks for one).
 */
export function csafVulnerability(d: DecisionRow, productIds: string[], environment: string): Json {
  const v: Json = {
    cve: d.cve_id,
    notes: [
      {
        category: 'summary',
        title: 'Triage decision',
        text: `${d.cve_id} in ${environment}: ${d.status.replace(/_/g, ' ')}, decided ${iso(d.updated_at).slice(0, 10)}.`,
      },
    ],
    product_status: { [CSAF_STATUS[d.status]]: productIds },
    references: [{ category: 'external', summary: 'CVE record', url: cveUrl(d.cve_id) }],
  };
  if (d.justification) v.flags = [{ label: d.justification, date: iso(d.updated_at), product_ids: productIds }];
  if (d.impact_statement)
    v.threats = [{ category: 'impact', details: d.impact_statement, date: iso(d.updated_at), product_ids: productIds }];
  if (d.action_statement)
    v.remediations = [
      {
        category: 'mitigation',
        details: actionText(d.action_statement, d.due_date),
        date: iso(d.updated_at),
        product_ids: productIds,
      },
    ];
  return v;
}

/**
 * One decision as a CycloneDX 1.6 vulnerability: analysis.state, CycloneDX's justification (CISA's exact one in a
 * property), the impact statement as analysis.detail, the action statement as the recommendation; `affects` names
 * the assets (bom-refs), or the environment itself for an environment-wide decision.
 */
export function cycloneDxVulnerability(d: DecisionRow, refs: string[]): Json {
  const analysis: Json = { state: CYCLONEDX_STATE[d.status] };
  if (d.justification) analysis.justification = CYCLONEDX_JUSTIFICATION[d.justification];
  if (d.impact_statement) analysis.detail = d.impact_statement;
  analysis.firstIssued = iso(d.created_at);
  analysis.lastUpdated = iso(d.updated_at);
  const v: Json = {
    id: d.cve_id,
    source: { name: 'CVE', url: cveUrl(d.cve_id) },
    analysis,
    affects: refs.map((ref) => ({ ref })),
  };
  if (d.action_statement) v.recommendation = actionText(d.action_statement, d.due_date);
  if (d.justification) v.properties = [{ name: CISA_JUSTIFICATION_PROPERTY, value: d.justification }];
  return v;
}

interface Ctx {
  orgId: number;
  orgName: string;
}

export function createVexService(db: Db, publicUrl: string) {
  /** Streams the decisions of an environment, one rendered element at a time, between a head and a tail. */
  async function* stream(
    org: Ctx,
    environmentId: number,
    first: DecisionRow[],
    head: string,
    render: (d: DecisionRow) => Json | null,
    tail: string,
  ): AsyncGenerator<string> {
    yield head;
    let page = first;
    let n = 0;
    while (page.length) {
      for (const d of page) {
        const element = render(d);
        if (element) yield (n++ ? ',' : '') + JSON.stringify(element);
      }
      if (page.length < PAGE) break;
      page = await decisionsAfter(db, org.orgId, environmentId, page[page.length - 1].cve_id, PAGE);
    }
    yield tail;
  }

  /** Selects the products a decision names: its assets, or every asset for an environment-wide one. */
  function namer<T>(products: Product[], of: (p: Product, i: number) => T): (d: DecisionRow) => T[] {
    const byId = new Map(products.map((p, i) => [p.asset_id, of(p, i)]));
    const all = [...byId.values()];
    return (d) =>
      d.asset_ids.length ? d.asset_ids.map((a) => byId.get(a)).filter((x): x is T => x !== undefined) : all;
  }

  const documents: Record<
    VexFormat,
    (
      org: Ctx,
      envId: number,
      envName: string,
      products: Product[],
      first: DecisionRow[],
      now: Date,
    ) => AsyncGenerator<string>
  > = {
    openvex(org, envId, _envName, products, first, now) {
      const name = namer(products, (p) => {
        const c: Json = { '@id': assetIri(publicUrl, envId, p.asset_id) };
        const cpe = exportedCpe(p.cpe);
        if (cpe) c.identifiers = { cpe23: cpe };
        return c;
      });
      const head = {
        '@context': 'https://openvex.dev/ns/v0.2.0',
        '@id': `${environmentIri(publicUrl, envId)}/vex/openvex/${now.getTime()}`,
        author: org.orgName,
        role: 'Document Creator',
        timestamp: now.toISOString(),
        version: 1,
        tooling: 'Vulnintel',
      };
      return stream(
        org,
        envId,
        first,
        `${JSON.stringify(head).slice(0, -1)},"statements":[`,
        (d) => openVexStatement(d, name(d)),
        ']}',
      );
    },

    csaf(org, envId, envName, products, first, now) {
      const pid = (i: number) => `VIPID-${i + 1}`;
      const name = namer(products, (_p, i) => pid(i));
      const document = {
        category: 'csaf_vex',
        csaf_version: '2.0',
        lang: 'en',
        notes: [
          {
            category: 'summary',
            title: 'What this document states',
            text: `The triage decisions of ${org.orgName} about the CVEs of its environment ${envName}: one vulnerability per decision, its products the environment's assets.`,
          },
        ],
        publisher: { category: 'user', name: org.orgName, namespace: base(publicUrl) },
        references: [
          { category: 'self', summary: 'This environment in Vulnintel', url: environmentIri(publicUrl, envId) },
        ],
        title: `VEX of ${envName}`,
        tracking: {
          current_release_date: now.toISOString(),
          generator: { date: now.toISOString(), engine: { name: 'Vulnintel' } },
          id: `VULNINTEL-ENV-${envId}-${now.getTime()}`,
          initial_release_date: now.toISOString(),
          revision_history: [{ date: now.toISOString(), number: '1', summary: 'Export of the current decisions.' }],
          status: 'final',
          version: '1',
        },
      };
      const productTree = {
        full_product_names: products.map((p, i) => {
          const fp: Json = { name: productName(p), product_id: pid(i) };
          const cpe = exportedCpe(p.cpe);
          fp.product_identification_helper = cpe
            ? {
                cpe,
                x_generic_uris: [
                  { namespace: environmentIri(publicUrl, envId), uri: assetIri(publicUrl, envId, p.asset_id) },
                ],
              }
            : {
                x_generic_uris: [
                  { namespace: environmentIri(publicUrl, envId), uri: assetIri(publicUrl, envId, p.asset_id) },
                ],
              };
          return fp;
        }),
      };
      const head = `{"document":${JSON.stringify(document)},"product_tree":${JSON.stringify(productTree)},"vulnerabilities":[`;
      // A decision narrowed to assets no longer stored names no product: CSAF needs one, so it is left out.
      return stream(
        org,
        envId,
        first,
        head,
        (d) => {
          const ids = name(d);
          return ids.length ? csafVulnerability(d, ids, envName) : null;
        },
        ']}',
      );
    },

    cyclonedx(org, envId, envName, products, first, now) {
      const envRef = environmentIri(publicUrl, envId);
      const byId = new Set(products.map((p) => p.asset_id));
      const refs = (d: DecisionRow) =>
        d.asset_ids.length
          ? d.asset_ids.filter((a) => byId.has(a)).map((a) => assetIri(publicUrl, envId, a))
          : [envRef];
      const head = {
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        serialNumber: `urn:uuid:${randomUUID()}`,
        version: 1,
        metadata: {
          timestamp: now.toISOString(),
          tools: { components: [{ type: 'application', name: 'Vulnintel' }] },
          authors: [{ name: org.orgName }],
          component: {
            type: 'platform',
            'bom-ref': envRef,
            name: envName,
            description: `Environment ${envName} of ${org.orgName}`,
          },
        },
        components: products.map((p) => {
          const c: Json = {
            type: p.kind === 'windows_host' ? 'operating-system' : 'device',
            'bom-ref': assetIri(publicUrl, envId, p.asset_id),
            name: productName(p),
          };
          if (p.vendor) c.manufacturer = { name: p.vendor };
          if (p.version) c.version = p.version;
          const cpe = exportedCpe(p.cpe);
          if (cpe) c.cpe = cpe;
          c.properties = [{ name: 'vulnintel:asset_id', value: p.asset_id }];
          return c;
        }),
      };
      return stream(
        org,
        envId,
        first,
        `${JSON.stringify(head).slice(0, -1)},"vulnerabilities":[`,
        (d) => cycloneDxVulnerability(d, refs(d)),
        ']}',
      );
    },
  };

  const importer = createVexImportService(db);
  return {
    /** An OpenVEX, CycloneDX or CSAF VEX document into the environment's decisions (services/vex-import.ts). */
    import: importer.import.bind(importer),

    /**
     * The environment's decisions as one VEX document in the format asked, in chunks of text; 'environment' when
     * the organization has no such environment, 'empty' when it holds no decision (a VEX document needs one),
     * 'no_products' for CSAF when the environment stores no asset (its product tree needs one).
     */
    async export(
      format: VexFormat,
      org: Ctx,
      environmentId: number,
      now: Date,
    ): Promise<AsyncGenerator<string> | 'environment' | 'empty' | 'no_products'> {
      const envName = await environmentName(db, org.orgId, environmentId);
      if (envName === null) return 'environment';
      const first = await decisionsAfter(db, org.orgId, environmentId, '', PAGE);
      if (!first.length) return 'empty';
      const products = await environmentProducts(db, org.orgId, environmentId);
      if (format === 'csaf' && !products.length) return 'no_products';
      return documents[format](org, environmentId, envName, products, first, now);
    },
  };
}

/** An asset's name in a document: vendor, product and version as stored, else its asset id. */
function productName(p: Product): string {
  const words = [p.vendor, p.product, p.version].filter((x): x is string => !!x && x.trim() !== '');
  return words.length ? `${words.join(' ')} (${p.asset_id})` : p.asset_id;
}

export type VexService = ReturnType<typeof createVexService>;
