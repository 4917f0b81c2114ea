// CVE change history reads (docs/watchlists.md "Change history"): one CVE's changes, and the corpus feed
// for mirrors and SIEMs (cursor = the feed position of the last change read).
import type { Db } from '../store/db.ts';
import { pageOf, type Tier } from '../domain/tiers.ts';
import { describeChange } from '../domain/changes.ts';
import { changeFeed, cveHistory, cveInCorpus, type ChangeRow } from '../store/changes.ts';

/** A recorded change as the endpoints show it: the stored row plus its one-line summary. */
export type ChangeView = ChangeRow & { summary: string };

export const view = (r: ChangeRow): ChangeView => ({
  seq: r.seq,
  cve_id: r.cve_id,
  kind: r.kind,
  summary: describeChange(r),
  before: r.before,
  after: r.after,
  changed_at: r.changed_at,
});

export function createChangeService(db: Db) {
  return {
    /**
     * One CVE's changes, newest first; null when the CVE is neither in the corpus nor in the history. `tier`: the
     * reader's (null: anonymous): per_page is clamped to its cap, as on every collection (spec §8).
     */
    async history(cveId: string, q: { page?: number; per_page?: number }, tier: Tier | null) {
      const { page, perPage } = pageOf(tier, q);
      const r = await cveHistory(db, cveId, perPage, (page - 1) * perPage);
      if (r.total === 0 && !(await cveInCorpus(db, cveId))) return null;
      return { items: r.items.map(view), total: r.total, page, perPage };
    },

    async feed(q: { since?: string; cursor?: string; limit?: number; kind?: string }) {
      const limit = q.limit ?? 100;
      // Kept as its digits: read as a number, 999999999999999999 came back as the cursor 1000000000000000000, which
      // the endpoint then refused (19 digits).
      const after = q.cursor ? q.cursor.replace(/^0+(?=\d)/, '') : '0';
      const r = await changeFeed(db, {
        since: q.since ? new Date(q.since) : null,
        after,
        kinds: q.kind ? q.kind.split(',') : null,
        limit,
      });
      const last = r.items.at(-1);
      // With nothing new the cursor stays where it was: the next call with it picks up what is recorded later.
      return { items: r.items.map(view), more: r.more, next: String(last ? last.seq : after) };
    },
  };
}

export type ChangeService = ReturnType<typeof createChangeService>;
