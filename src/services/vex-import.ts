// VEX import (docs/vex.md "Import"): an OpenVEX, CycloneDX or CSAF VEX document (one of our exports, or another's) into an
// environment's decisions: from a test plant into production, from an integrator to its client. Each statement's
// products are resolved to the environment's assets; a decision changed after the statement is never overwritten.
// All in one transaction with its history rows (action import); nothing half-stored.
import type { Db } from '../store/db.ts';
import { lockEnvironment, environmentExists } from '../store/windows.ts';
import { getDecisions, writeDecisions, type DecisionWrite } from '../store/triage-decisions.ts';
import { environmentProducts, knownCves } from '../store/triage-references.ts';
import { readVexDocument, versionIn } from '../domain/vex-import.ts';
import type { ImportStatement, ProductRef, VexImportFormat } from '../domain/vex-statements.ts';
import { compareVersions } from '../domain/versions.ts';
import { normalizeDecision, DECISION_ASSETS_MAX } from '../domain/triage.ts';
import { statementCovers, type AssetNameplate } from '../domain/vendor-statements.ts';
import { actorOf, type Writer } from './triage-writes.ts';
import { environmentNotFound, invalidInput } from './refusal.ts';

export interface ImportSkip {
  index: number;
  cve_id: string | null;
  reason: string;
}
export interface ImportResult {
  format: VexImportFormat;
  document_id: string | null;
  statements: number;
  created: number;
  updated: number;
  skipped: ImportSkip[];
  dry_run: boolean;
}

const FORMAT_NAMES: Record<VexImportFormat, string> = { openvex: 'OpenVEX', cyclonedx: 'CycloneDX', csaf: 'CSAF' };

type Asset = AssetNameplate & { cpe: string | null };

/** The assets a product names: our asset id, an equal CPE, or the vendor, product and version (domain/vendor-statements). */
function assetsOf(p: ProductRef, assets: readonly Asset[]): Asset[] {
  if (p.asset_id !== undefined) return assets.filter((a) => a.asset_id === p.asset_id);
  if (p.cpe !== undefined) return assets.filter((a) => a.cpe !== null && a.cpe.toLowerCase() === p.cpe!.toLowerCase());
  if (!p.name) return [];
  // A product without a vendor (a CycloneDX component may have none) is matched by product and version only; with
  // affects[].versions, the asset's version must be one of them (an asset without a version is not placed).
  const named = assets.filter((a) =>
    statementCovers(
      { vendor: p.vendor ?? a.vendor, product: p.name!, version: p.versions ? null : (p.version ?? null) },
      a,
    ),
  );
  return p.versions
    ? named.filter((a) => a.version !== null && p.versions!.some((e) => versionIn(a.version!, e, compareVersions)))
    : named;
}

/** The asset ids a statement narrows to ([] = the whole environment), or why it cannot be placed. */
export function placeStatement(
  s: ImportStatement,
  assets: readonly Asset[],
): { asset_ids: string[] } | { reason: string } {
  if (!s.products.length || s.products.some((p) => p.environment)) return { asset_ids: [] };
  const ids = new Set(s.products.flatMap((p) => assetsOf(p, assets).map((a) => a.asset_id)));
  if (!ids.size) return { reason: 'no product of the statement matches an asset of this environment' };
  if (ids.size === assets.length) return { asset_ids: [] };
  if (ids.size > DECISION_ASSETS_MAX)
    return { reason: `the statement names ${ids.size} assets; a decision narrows to at most ${DECISION_ASSETS_MAX}` };
  return { asset_ids: [...ids].sort() };
}

export function createVexImportService(db: Db) {
  return {
    /**
     * Imports a document into an environment: 'environment' when the organization has none of this id; field errors
     * when the document is neither format. Statements that cannot be imported are listed in `skipped` with why
     * (no CVE id, not in the corpus, no matching asset, a rule of the decision, a newer decision kept).
     */
    async import(w: Writer, environmentId: number, doc: unknown, dryRun: boolean): Promise<ImportResult> {
      if (!(await environmentExists(db, w.orgId, environmentId))) throw environmentNotFound(environmentId);
      const read = readVexDocument(doc);
      if (!read.ok) throw invalidInput(null, read.errors);
      const skipped: ImportSkip[] = read.skipped.map((s) => ({ index: s.index, cve_id: null, reason: s.reason }));
      const assets = await environmentProducts(db, w.orgId, environmentId);
      const known = await knownCves(db, [...new Set(read.statements.map((s) => s.cve_id))]);
      // Each statement placed on the environment's assets; then one decision per CVE: the statements placed for it
      // must agree on the status (their assets are joined), else the CVE is left out (a decision holds one status).
      const placedBy = new Map<string, { index: number; s: ImportStatement; asset_ids: string[] }[]>();
      read.statements.forEach((s, index) => {
        if (!known.has(s.cve_id)) return void skipped.push({ index, cve_id: s.cve_id, reason: 'not in the corpus' });
        const placed = placeStatement(s, assets);
        if ('reason' in placed) return void skipped.push({ index, cve_id: s.cve_id, reason: placed.reason });
        placedBy.set(s.cve_id, [...(placedBy.get(s.cve_id) ?? []), { index, s, asset_ids: placed.asset_ids }]);
      });
      const candidates: { index: number; s: ImportStatement; write: DecisionWrite }[] = [];
      for (const [cve, list] of placedBy) {
        const { index, s } = list[0];
        if (list.some((x) => x.s.status !== s.status)) {
          for (const x of list)
            skipped.push({
              index: x.index,
              cve_id: cve,
              reason: `the document states ${[...new Set(list.map((y) => y.s.status))].join(' and ')} for assets of this environment; a decision holds one status`,
            });
          continue;
        }
        const assetIds = list.some((x) => !x.asset_ids.length) ? [] : [...new Set(list.flatMap((x) => x.asset_ids))];
        for (const x of list.slice(1))
          skipped.push({ index: x.index, cve_id: cve, reason: `joined with statement ${index}` });
        const n = normalizeDecision({ ...s, asset_ids: assetIds, assignee_member_id: null });
        if (!n.ok) {
          skipped.push({
            index,
            cve_id: cve,
            reason: n.errors.map((e) => `${e.field.replace(/^body\./, '')}: ${e.message}`).join('; '),
          });
          continue;
        }
        const timestamps = list.map((x) => x.s.timestamp);
        const timestamp = timestamps.includes(null) ? null : timestamps.sort().at(-1)!;
        candidates.push({
          index,
          s: { ...s, timestamp },
          write: {
            cve_id: cve,
            fields: n.fields,
            comment: `Imported from ${FORMAT_NAMES[read.format]} ${read.id ?? 'document'}`.slice(0, 4000),
          },
        });
      }
      const out = await db.transaction().execute(async (trx) => {
        if (!(await lockEnvironment(trx, w.orgId, environmentId))) return null;
        const before = await getDecisions(
          trx,
          w.orgId,
          environmentId,
          candidates.map((c) => c.s.cve_id),
          true,
        );
        const writes: DecisionWrite[] = [];
        for (const c of candidates) {
          const cur = before.get(c.s.cve_id);
          // Never over a newer decision: an existing one stays unless the statement was changed after it.
          if (cur && (c.s.timestamp === null || new Date(cur.updated_at).toISOString() >= c.s.timestamp)) {
            skipped.push({
              index: c.index,
              cve_id: c.s.cve_id,
              reason:
                c.s.timestamp === null
                  ? 'the statement has no timestamp and a decision exists'
                  : 'the decision here is newer than the statement: kept',
            });
          } else writes.push(c.write);
        }
        if (!dryRun) await writeDecisions(trx, w.orgId, environmentId, writes, before, actorOf(w), 'import');
        const created = writes.filter((x) => !before.has(x.cve_id)).length;
        return { created, updated: writes.length - created };
      });
      if (!out) throw environmentNotFound(environmentId);
      skipped.sort((a, b) => a.index - b.index);
      return {
        format: read.format,
        document_id: read.id,
        statements: read.statements.length + read.skipped.length,
        ...out,
        skipped,
        dry_run: dryRun,
      };
    },
  };
}
