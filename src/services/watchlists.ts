// Watchlists and the product and protocol catalogs (docs/watchlists.md). Never request or reply here:
// who is asking arrives as plain data, and refusals come back typed for the route to map to spec §7.
import { withTx, type Db } from '../store/db.ts';
import { lockOrg } from '../store/accounts.ts';
import { renamedVendorSlug } from './renamed-vendors.ts';
import { ICS_PROTOCOLS } from '../domain/cve-document.ts';
import {
  catalogProductKey,
  entityKey,
  PROTOCOL_NAMES,
  protocolName,
  WATCHLIST_MAX_ENTRIES,
  type WatchEntityType,
} from '../domain/watchlist.ts';
import {
  addWatchEntry,
  findWatchEntry,
  catalogName,
  countWatches,
  deleteWatchEntry,
  listProducts,
  listWatches,
  protocolCounts,
  type ProductRow,
  type WatchRow,
} from '../store/watchlists.ts';
import { pageArgs, type PageRequest, type Reader } from './cve-reader.ts';
import { invalidInput, Refusal } from './refusal.ts';

export interface WatchEntry {
  id: number;
  entity_type: WatchEntityType;
  entity_id: string;
  /** The catalog's current name; the id itself when the catalog no longer holds it. */
  entity_name: string;
  created_at: string;
}

/** An entity_id the catalog does not hold (or cannot be one): 422 on body.entity_id, type value_error.<reason>. */
const badId = (reason: 'invalid_id' | 'not_in_catalog', message: string) =>
  invalidInput(null, [{ field: 'body.entity_id', message, type: `value_error.${reason}` }]);
const alreadyWatching = (entryId: number) =>
  new Refusal('already_watching', 'Already watching this entity', { entry_id: entryId });

const view = (r: WatchRow): WatchEntry => ({
  id: r.id,
  entity_type: r.entity_type,
  entity_id: r.entity_key,
  entity_name: r.entity_type === 'protocol' ? protocolName(r.entity_key) : (r.catalog_name ?? r.entity_key),
  created_at: r.created_at,
});

const CATALOG_OF: Record<WatchEntityType, string> = {
  vendor: 'the vendor catalog (GET /api/v1/catalog/vendors)',
  product: 'the product catalog (GET /api/v1/catalog/products)',
  protocol: 'the protocol catalog (GET /api/v1/catalog/protocols)',
  cve: 'the CVE corpus',
};

/** `catalogDb`: where the product and protocol catalogs are read (a read replica when one may answer). */
export function createWatchlistService(db: Db, catalogDb: Db = db) {
  /**
   * The catalog id a former id now has, or null: a vendor's former slug (renamedVendorSlug, docs/watchlists.md
   * "Renamed vendors"), and a product id keyed before the catalog dropped the vendor in front and a trailing
   * "firmware" (`linux/linux-kernel` → `linux/kernel`), under its vendor or the vendor's new slug.
   */
  async function currentId(type: WatchEntityType, key: string): Promise<string | null> {
    if (type === 'vendor') return renamedVendorSlug(db, key);
    if (type !== 'product') return null;
    const [vendor, product] = key.split('/');
    for (const slug of [vendor, await renamedVendorSlug(db, vendor)]) {
      if (slug === null) continue;
      const id = `${slug}/${catalogProductKey(product, slug)}`;
      if (id !== key && (await catalogName(db, type, id)) !== null) return id;
    }
    return null;
  }

  return {
    /** A page of the organization's watchlist; `per_page` is clamped to the reader's tier cap, as every collection's. */
    async list(who: Reader & { orgId: number }, q: PageRequest & { entity_type?: WatchEntityType }) {
      const { page, perPage, offset } = pageArgs(who, q);
      const { total, rows } = await listWatches(db, who.orgId, q.entity_type, perPage, offset);
      return { items: rows.map(view), total, page, perPage };
    },

    async add(
      orgId: number,
      memberId: number | null,
      input: { entity_type: WatchEntityType; entity_id: string },
    ): Promise<{ entry: WatchEntry }> {
      const k = entityKey(input.entity_type, input.entity_id);
      if (!k.ok) throw badId('invalid_id', k.message);
      let key = k.key;
      if (input.entity_type !== 'protocol' && (await catalogName(db, input.entity_type, key)) === null) {
        // A vendor's former slug (a saved link, an older export) names the vendor it became
        // (docs/watchlists.md "Renamed vendors"): the entry is stored under the catalog's id.
        const now = await currentId(input.entity_type, key);
        if (now === null)
          throw badId('not_in_catalog', `${input.entity_id} is not in ${CATALOG_OF[input.entity_type]}`);
        key = now;
      }
      // The bound is checked and the entry inserted in one transaction holding the organization's row lock, so
      // concurrent adds at the bound are taken one after the other and the list never passes it.
      return withTx(db, async (tx): Promise<{ entry: WatchEntry }> => {
        await lockOrg(tx, orgId);
        // An entity already watched is answered as such even on a full list (a retried add learns its entry id).
        const existing = await findWatchEntry(tx, orgId, input.entity_type, key);
        if (existing !== null) throw alreadyWatching(existing);
        if ((await countWatches(tx, orgId)) >= WATCHLIST_MAX_ENTRIES)
          throw new Refusal('limit_reached', `A watchlist holds at most ${WATCHLIST_MAX_ENTRIES} entries`, {
            max: WATCHLIST_MAX_ENTRIES,
          });
        const r = await addWatchEntry(tx, orgId, input.entity_type, key, memberId);
        if ('existing' in r) throw alreadyWatching(r.existing);
        return { entry: view(r.row) };
      });
    },

    async remove(orgId: number, id: number): Promise<WatchEntry | null> {
      const r = await deleteWatchEntry(db, orgId, id);
      return r ? view(r) : null;
    },

    async products(who: Reader, q: PageRequest & { vendor?: string; q?: string }) {
      const { page, perPage, offset } = pageArgs(who, q);
      const { total, rows } = await listProducts(
        catalogDb,
        { vendor: q.vendor, q: q.q?.trim() || undefined },
        perPage,
        offset,
      );
      const items = rows.map((r) => ({
        id: `${r.vendor_slug}/${r.product_key}`,
        name: r.name,
        vendor_slug: r.vendor_slug,
        vendor: r.vendor,
        cve_count: r.cve_count,
      }));
      return { items, total, page, perPage };
    },

    /**
     * Type-ahead for an asset's product: catalog products whose name or key holds `q`, of the vendor `vendor` names
     * (its name or slug, as a nameplate spells it) when the catalog has products of it, else of every vendor.
     */
    async productSuggestions(q: { vendor?: string; q?: string }, limit: number) {
      const vendor = q.vendor?.trim() ? entityKey('vendor', q.vendor) : null;
      const text = q.q?.trim() || undefined;
      const view = (rows: ProductRow[]) =>
        rows.map((r) => ({
          id: `${r.vendor_slug}/${r.product_key}`,
          name: r.name,
          vendor: r.vendor,
          cve_count: r.cve_count,
        }));
      if (vendor?.ok) {
        const mine = await listProducts(catalogDb, { vendor: vendor.key, q: text }, limit, 0);
        if (mine.total > 0 || !text) return view(mine.rows);
      }
      return view((await listProducts(catalogDb, { q: text }, limit, 0)).rows);
    },

    /** The ICS protocols (spec §4.1 list, fixed) with their exact CVE counts; `q` matches the id or name. */
    async protocols(q: { q?: string }) {
      const counts = await protocolCounts(catalogDb);
      const needle = q.q?.trim().toLowerCase();
      const items = ICS_PROTOCOLS.map((p) => ({
        id: p,
        name: PROTOCOL_NAMES[p],
        cve_count: counts.get(p) ?? 0,
      })).filter((p) => !needle || p.id.includes(needle) || p.name.toLowerCase().includes(needle));
      return { items };
    },
  };
}

export type WatchlistService = ReturnType<typeof createWatchlistService>;
