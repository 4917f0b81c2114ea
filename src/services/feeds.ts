// Atom feeds (beyond the spec; docs/feeds.md): public per vendor, and per organization watchlist through
// a revocable feed token (stored hashed, shown once). The feeds show new and changed CVEs from the change history.
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { confusableWith } from '../domain/names.ts';
import { lockOrg } from '../store/accounts.ts';
import { describeChange } from '../domain/changes.ts';
import { corpusChangedAt, getVendor } from '../store/cve-catalog.ts';
import { renamedVendorSlug } from './renamed-vendors.ts';
import { invalidInput, type Refusal } from './refusal.ts';
import {
  insertFeedToken,
  listFeedTokens,
  orgOfFeedToken,
  recentChangesOf,
  revokeFeedToken,
  vendorFeedCves,
  watchlistFeedCves,
  type FeedCve,
  type FeedTokenRow,
} from '../store/feeds.ts';

/** Entries per feed, changes per entry, and how many of the newest recorded changes a watchlist feed looks at. */
export const FEED_ENTRIES = 50;
export const CHANGES_PER_ENTRY = 5;
export const WATCHLIST_WINDOW = 20_000;
/** Feed tokens: `vi_feed_` + 43 base64url characters (32 random bytes). */
const TOKEN_PREFIX = 'vi_feed_';
const TOKEN_RE = /^vi_feed_[A-Za-z0-9_-]{43}$/;

/** A feed's content; the route renders it as Atom (src/http/views/feed-atom.ts). */
export interface FeedDocument {
  id: string;
  title: string;
  subtitle: string;
  selfUrl: string;
  siteUrl: string;
  publicUrl: string;
  /** One per CVE, newest change first; `changes`: its newest changes as one line each, newest first. */
  entries: (FeedCve & { changes: string[] })[];
  etag: string;
  /** The newest entry's change, or with no entry the corpus's last change (ISO 8601). */
  updated: string;
}

export interface FeedTokenView {
  id: number;
  label: string | null;
  token_start: string;
  created_at: string;
  revoked_at: string | null;
  status: 'active' | 'revoked';
}

/** A label that looks like a live token's label `existing` of the organization. */
function confusable(existing: string): Refusal {
  const message = `looks like the feed token "${existing}" of your organization (the same letters from another script, full-width, or invisible marks); choose a label that reads differently`;
  return invalidInput(`label: ${message}`, [{ field: 'body.label', message, type: 'value_error.confusable' }]);
}

const tokenView = (r: FeedTokenRow): FeedTokenView => ({
  id: r.id,
  label: r.label,
  token_start: r.token_start,
  created_at: r.created_at.toISOString(),
  revoked_at: r.revoked_at ? r.revoked_at.toISOString() : null,
  status: r.revoked_at ? 'revoked' : 'active',
});

/**
 * `corpusDb`: where the vendor feeds read (a read replica when one may answer; services/index.ts). A watchlist feed
 * reads the organization's token and watchlist, written just before perhaps: on the primary, with its entries.
 */
export function createFeedService(db: Db, clock: Clock, publicUrl: string, corpusDb: Db = db) {
  async function document(
    db: Db,
    id: string,
    title: string,
    subtitle: string,
    selfPath: string,
    sitePath: string,
    cves: FeedCve[],
  ): Promise<FeedDocument> {
    const changes = await recentChangesOf(
      db,
      cves.map((c) => c.cve_id),
      CHANGES_PER_ENTRY,
    );
    const byCve = new Map<string, string[]>();
    for (const ch of changes) byCve.set(ch.cve_id, [...(byCve.get(ch.cve_id) ?? []), describeChange(ch)]);
    const entries = cves.map((c) => ({ ...c, changes: byCve.get(c.cve_id) ?? [] }));
    // The feed changes exactly when one of its entries gets a new newest change (or the set of entries changes). A
    // feed with no entry yet (a bulk import records no changes) is as new as the corpus: its last change.
    const updated = cves[0]?.changed_at ?? (await corpusChangedAt(db)).toISOString();
    // The ETag covers everything the document shows, not only the change positions: a renamed organization (the
    // feed's title) or a CVE whose title changed (not a recorded change) is a new document, never a 304 on the old one.
    const shown = JSON.stringify([
      id,
      title,
      subtitle,
      updated,
      entries.map((e) => [e.cve_id, e.seq, e.title, e.severity, e.cvss_score, e.kev_flagged, e.changes]),
    ]);
    return {
      id,
      title,
      subtitle,
      selfUrl: `${publicUrl}${selfPath}`,
      siteUrl: `${publicUrl}${sitePath}`,
      publicUrl,
      entries,
      etag: `"${sha256Hex(shown).slice(0, 32)}"`,
      updated,
    };
  }

  return {
    /** null: no catalog vendor with this slug; `movedTo`: a slug the catalog renamed (the route answers 301). */
    async vendorFeed(slug: string): Promise<FeedDocument | { movedTo: string } | null> {
      const v = await getVendor(corpusDb, slug);
      if (!v) {
        const movedTo = await renamedVendorSlug(corpusDb, slug);
        return movedTo ? { movedTo } : null;
      }
      const cves = await vendorFeedCves(corpusDb, v.slug, FEED_ENTRIES);
      return document(
        corpusDb,
        `${publicUrl}/feeds/vendor/${v.slug}.atom`,
        `Vulnintel: ${v.name} CVEs`,
        `New and changed CVEs naming ${v.name}`,
        `/feeds/vendor/${v.slug}.atom`,
        `/api/v1/cves/vendor/${v.slug}`,
        cves,
      );
    },

    /** null: unknown, malformed or revoked token, or an organization that is not active (all the same to the caller). */
    async watchlistFeed(token: string): Promise<FeedDocument | null> {
      if (!TOKEN_RE.test(token)) return null;
      const org = await orgOfFeedToken(db, sha256Hex(token));
      if (!org) return null;
      const cves = await watchlistFeedCves(db, org.org_id, WATCHLIST_WINDOW, FEED_ENTRIES);
      // The id names the token's hash, never the organization: the document reveals nothing of the tenant's ids.
      return document(
        db,
        `urn:vulnintel:watchlist-feed:${sha256Hex(token).slice(0, 16)}`,
        `Vulnintel: ${org.org_name} watchlist`,
        'New and changed CVEs matching the watchlist and stored assets',
        `/feeds/watchlist/${token}.atom`,
        '/account',
        cves,
      );
    },

    /**
     * A new token, shown once in `token` and `url`. A label that looks like another live token's label of the
     * organization (domain/names.ts) is refused (422 on body.label, value_error.confusable); nothing stored.
     */
    async createToken(orgId: number, memberId: number | null, label: string | null) {
      const token = `${TOKEN_PREFIX}${randomToken(32)}`;
      // Under the organization's row lock: two look-alike labels created at once cannot both pass.
      const row = await db.transaction().execute(async (trx) => {
        if (label !== null) {
          await lockOrg(trx, orgId);
          const live = (await listFeedTokens(trx, orgId))
            .filter((t) => t.revoked_at === null && t.label !== null)
            .map((t) => t.label!);
          const existing = confusableWith(label, live);
          if (existing !== null) return { confusable: existing };
        }
        return insertFeedToken(trx, orgId, memberId, {
          label,
          hash: sha256Hex(token),
          start: token.slice(0, TOKEN_PREFIX.length + 6),
        });
      });
      if ('confusable' in row) throw confusable(row.confusable);
      return { ...tokenView(row), token, url: `${publicUrl}/feeds/watchlist/${token}.atom` };
    },

    async listTokens(orgId: number): Promise<FeedTokenView[]> {
      return (await listFeedTokens(db, orgId)).map(tokenView);
    },

    /** Idempotent; null when the organization has no such token. */
    async revokeToken(orgId: number, id: number): Promise<FeedTokenView | null> {
      const r = await revokeFeedToken(db, orgId, id, clock.now());
      return r ? tokenView(r) : null;
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;
