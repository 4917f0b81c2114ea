// The enricher of the import pipeline: every CVE a batch touches is re-merged from its stored sources, enriched
// by the domain rules and written to the `cves` read model in the batch's transaction (with its change history
// and ranges); the configured analysis provider is called after the batch commits.
import type { Db, Tx } from '../../store/db.ts';
import { withTx } from '../../store/db.ts';
import { rangeSet, storeRanges, type RangeSet } from '../../store/ranges.ts';
import { docRow, upsertCves, upsertCvesWithPrevious, upsertDocRows, type DocRow } from '../../store/cves.ts';
import { recordChanges, storedFacts, type ChangeInput } from '../../store/changes.ts';
import { touchCorpus } from '../../store/bulk.ts';
import { deleteCves, getState, loadCatalogRows, loadSources, previousSages } from '../../store/ingest.ts';
import { recordOf, type SourceText } from '../../ingest/record-json.ts';
import { diffCve, diffRanges, factsOf, type ChangeFacts } from '../../domain/changes.ts';
import { mergeSources } from '../../domain/merge.ts';
import { buildCapecIndex } from '../../domain/capec.ts';
import { buildCveDocument, type Built, type Catalogs } from '../../domain/enrich.ts';
import { GROUNDED_MODEL, type AnalysisFacts } from '../../domain/analysis.ts';
import { ENRICHMENT_VERSION, type CveDocument, type SageBlock } from '../../domain/cve-document.ts';
import type { PipelineOptions } from './types.ts';

export type PendingAnalysis = { doc: CveDocument; facts: AnalysisFacts };

export class Enricher {
  catalogs: Catalogs = { cwe: new Map(), capec: buildCapecIndex([], null) };
  catalogKey = '';
  /**
   * Where changes are recorded (the enricher run), or null: a bulk load into an empty corpus is the baseline and
   * records none (docs/watchlists.md "Change history").
   */
  history: { runId: number } | null = null;
  constructor(private readonly opts: PipelineOptions) {}

  async reload(db: Db | Tx): Promise<void> {
    const rows = await loadCatalogRows(db);
    this.catalogs = {
      cwe: new Map(rows.cwe.map((c) => [c.id, { name: c.name }])),
      capec: buildCapecIndex(rows.capec, rows.capecVersion),
    };
    // The enrichment rules' version is part of the key: a corpus built with older rules is re-enriched by the
    // next import or sync, like one built with other catalogs.
    this.catalogKey = `${ENRICHMENT_VERSION}:${(await getState(db, 'cwe_catalog_hash')) ?? ''}:${(await getState(db, 'capec_catalog_hash')) ?? ''}`;
  }

  /**
   * Re-enriches the given CVEs from their stored sources; writes changed documents, drops CVEs without a description.
   * Returns the documents waiting for the configured analysis provider: the caller passes them to analyse() once
   * the transaction has committed (each batch keeps its own list, so concurrent writers never mix them).
   */
  async enrich(
    tx: Tx,
    ids: string[],
    known: SourceText[] = [],
  ): Promise<{ written: number; removed: number; pending: PendingAnalysis[]; touched: boolean }> {
    const pending: PendingAnalysis[] = [];
    if (!ids.length) return { written: 0, removed: 0, pending, touched: false };
    const { records, epss } = await loadSources(tx, ids, known);
    const now = this.opts.now?.() ?? new Date().toISOString();
    const provider = this.opts.provider && this.opts.provider.name !== 'grounded' ? this.opts.provider : null;
    const history = this.history !== null;
    // Every CVE is worked out here, one at a time and before the batch's next round trip: its records are parsed
    // (record-json.ts), its structured ranges grouped and hashed, and its document built and serialised.
    // The batch then holds strings, not records and documents, while it waits on the database: what outlived the young
    // generation was copied by every scavenge. Documents are kept only for the analysis provider, and their change
    // facts only for the history.
    const sets = new Map<string, RangeSet>();
    const rows: DocRow[] = [];
    const facts = new Map<string, ChangeFacts>();
    const built: Built[] = [];
    const drop: string[] = [];
    for (const id of ids) {
      const recs = (records.get(id) ?? []).map(recordOf);
      sets.set(id, rangeSet(recs, history));
      const m = recs.length ? mergeSources(id, recs, epss.get(id) ?? null) : null;
      // The corpus is every CVE that has a description from some source.
      if (!m || !m.description) {
        drop.push(id);
        continue;
      }
      const b = buildCveDocument(m, this.catalogs, now);
      if (provider) built.push(b);
      else rows.push(docRow(b.doc));
      if (history) facts.set(id, factsOf(b.doc));
    }
    // Unchanged range sets write nothing.
    const rangeChanges = await storeRanges(tx, sets, history);
    if (provider) {
      // The provider is called after the batch commits (analyse()), never inside the transaction: until it
      // answers, a record shows its previous analysis (or the grounded one) marked pending.
      const prev = await previousSages(
        tx,
        built.map((b) => b.doc.cve_id),
      );
      for (const b of built) {
        const before = prev.get(b.doc.cve_id) as SageBlock | undefined;
        b.doc.sage = { ...(before && before.model !== GROUNDED_MODEL ? before : b.doc.sage), status: 'pending' };
        pending.push(b);
        rows.push(docRow(b.doc));
      }
    }
    // A changed range set is a corpus change (cached answers are dropped). The corpus row is bumped last: its row
    // lock is held until commit, and taken earlier it would serialise the concurrent batch writers' upserts.
    const touched = rangeChanges.length > 0;
    if (!this.history) {
      const written = await upsertDocRows(tx, rows);
      const removed = await deleteCves(tx, drop);
      if (touched) await touchCorpus(tx);
      return { written, removed, pending, touched };
    }
    // Change history: the facts each written row replaced come back from the upsert itself (only rows whose
    // document changed are read), those of removed CVEs are read before the delete.
    const written = await upsertCvesWithPrevious(tx, rows);
    const gone = drop.length ? await storedFacts(tx, drop) : new Map<string, ChangeFacts>();
    const removed = await deleteCves(tx, drop);
    const changes: ChangeInput[] = [];
    for (const w of written) {
      const prev = w.inserted || !w.previous ? null : factsOf(w.previous);
      for (const c of diffCve(prev, facts.get(w.cve_id)!)) changes.push({ cve_id: w.cve_id, ...c });
    }
    for (const [id, f] of gone) for (const c of diffCve(f, null)) changes.push({ cve_id: id, ...c });
    // Affected ranges: only CVEs whose range digest changed come back from storeRanges; a CVE new to the corpus
    // (its new_cve says it all) or leaving it records no range change.
    const fresh = new Set(written.filter((w) => w.inserted || !w.previous).map((w) => w.cve_id));
    const dropped = new Set(drop);
    for (const rc of rangeChanges) {
      if (fresh.has(rc.cve_id) || dropped.has(rc.cve_id)) continue;
      const c = diffRanges(rc.before, rc.after);
      if (c) changes.push({ cve_id: rc.cve_id, ...c });
    }
    if (touched) await touchCorpus(tx);
    // Last statement of the batch transaction: it takes the feed-position lock until commit.
    await recordChanges(tx, changes, this.history.runId);
    return { written: written.length, removed, pending, touched };
  }

  /** Runs the configured provider over the documents of a committed batch; failures leave them pending. */
  async analyse(conn: Db, pending: PendingAnalysis[]): Promise<number> {
    const provider = this.opts.provider;
    const queue = [...pending];
    if (!provider || !queue.length) return 0;
    const done: CveDocument[] = [];
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const now = this.opts.now?.() ?? new Date().toISOString();
        try {
          const sage = await provider.analyze(item.facts, item.doc.sage, now);
          done.push({ ...item.doc, sage });
        } catch {
          // Keeps the stored (pending) analysis: the provider never blocks or fails the import.
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    return done.length ? withTx(conn, (tx) => upsertCves(tx, done)) : 0;
  }
}
