// A vendor slug the catalog renamed (docs/watchlists.md "Renamed vendors"): the slug it became, so that links kept
// from before (a feed subscription, a bookmarked vendor page) are sent on with a 301 instead of a 404.
import type { Db } from '../store/db.ts';
import { getVendor } from '../store/cve-catalog.ts';
import { formerSlugTarget } from '../domain/vendors.ts';

/**
 * The catalog slug a slug not in the catalog became, or null (no catalog vendor stands for it). Only a slug's form
 * (lower-case letters, digits, '-') can have been a slug: a name ("Siemens") stays no slug (404).
 */
export async function renamedVendorSlug(db: Db, slug: string): Promise<string | null> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug)) return null;
  const t = formerSlugTarget(slug);
  return t !== null && (await getVendor(db, t)) ? t : null;
}
