// Watchlists (docs/watchlists.md): what an organization can watch and how a watched entity is named.
// Pure. Ids come from the catalogs: a vendor slug (GET /api/v1/catalog/vendors), a product id
// `<vendor-slug>/<product-key>` (GET /api/v1/catalog/products), a protocol name (GET /api/v1/catalog/protocols),
// or a CVE id.
import { ICS_PROTOCOLS, type IcsProtocol } from './cve-document.ts';
import { isCveIdAnyCase } from './cve-id.ts';
import { memoTable } from './memo.ts';
import { canonicalVendor } from './vendors.ts';

export const WATCH_ENTITY_TYPES = ['vendor', 'product', 'protocol', 'cve'] as const;
export type WatchEntityType = (typeof WATCH_ENTITY_TYPES)[number];

/** Most entries one organization may hold (a bound on the per-row ranking and on the alert run's matching). */
export const WATCHLIST_MAX_ENTRIES = 500;

/**
 * The product key: lowercase ASCII letters and digits, every other run of characters one '-', none at the ends.
 * Same as the SQL function vi_product_key (migration 0920). '' for a name with no ASCII letter or digit.
 */
export function productKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * The key of a product in the product catalog (its id is `<vendor-slug>/<key>`): the product key without the
 * vendor's slug in front and without a trailing "firmware", each only when something remains. Sources spell one
 * product with and without both ("Linux Kernel" and "kernel" of linux, `dap-2622` and `dap-2622_firmware` of
 * D-Link, "Microsoft Edge" and "Edge"), and as separate catalog products a watch on one would miss the
 * CVEs naming the other (the snapshot's 30,793 spellings are 29,764 catalog products). Same as the SQL function
 * vi_catalog_product_key (migration 1170); a test holds them equal.
 */
export function catalogProductKey(name: string, vendorSlug: string): string {
  return catalogKeyOf(productKey(name), vendorSlug);
}

/** Whether a product key starts with the vendor's slug and a dash, and goes on after them. */
function startsWithVendor(key: string, vendorSlug: string): boolean {
  return (
    key.length > vendorSlug.length + 1 &&
    key.charCodeAt(vendorSlug.length) === 45 /* '-' */ &&
    key.startsWith(vendorSlug)
  );
}

/** A product key without a trailing "firmware", when something remains. */
function withoutFirmware(key: string): string {
  return key.endsWith('-firmware') && key.length > '-firmware'.length ? key.slice(0, -'-firmware'.length) : key;
}

/** catalogProductKey of a name whose product key is `key`. */
function catalogKeyOf(key: string, vendorSlug: string): string {
  return withoutFirmware(startsWithVendor(key, vendorSlug) ? key.slice(vendorSlug.length + 1) : key);
}

const PRODUCT_KEYS = memoTable<string, string>(50_000);

/** productKey, memoised: the import writes the same product names (MSRC's Windows editions) with thousands of CVEs. */
function memoProductKey(name: string): string {
  let k = PRODUCT_KEYS.get(name);
  if (k === undefined) {
    k = productKey(name);
    PRODUCT_KEYS.set(name, k);
  }
  return k;
}

/** Above this many vendor × product pairs, a CVE's product ids are stored in the compact form (cveProductKeys). */
export const PRODUCT_PAIRS_MAX = 1000;

/**
 * The catalog products a CVE names, as `cve_product_keys` stores them (migrations 1180, 1280; docs/watchlists.md
 * "Ranking"): each of its vendors paired with each of its product names under the catalog key, as
 * `<vendor-slug>/<catalog key>`, distinct and in byte order; names without a key are left out, and nothing without a
 * vendor. A CVE of many vendors and many names would hold every pairing (CVE-2022-4974, 377 vendors and 620 products:
 * 233,740 ids, most of a first import's product-id index), so past PRODUCT_PAIRS_MAX pairs the ids take a compact
 * form: a name whose key starts with none of the CVE's vendor slugs has the same catalog key under every one of them
 * and is stored once, as that key alone (`kernel`), with each vendor once as `<vendor-slug>/`; a name whose key starts
 * with one of them ("Linux Kernel" of linux) keeps `<vendor-slug>/<catalog key>` per vendor (CVE-2022-4974: 14,157).
 * A watched product matches a CVE as cveNamesProduct says, in either form, in the ranked list (store/watchlists.ts
 * interestOf, through an index) and in the alert run (store/alert-matching.ts watchHits). Same as the SQL function
 * vi_cve_product_keys; a test holds them equal.
 */
export function cveProductKeys(vendorSlugs: readonly string[], products: readonly string[]): string[] {
  if (!vendorSlugs.length) return [];
  const keys = new Set<string>();
  for (const name of products) {
    const key = memoProductKey(name);
    if (key) keys.add(key);
  }
  const ids = new Set<string>();
  const compact = vendorSlugs.length * keys.size > PRODUCT_PAIRS_MAX;
  let alone = false;
  for (const key of keys) {
    if (!compact || vendorSlugs.some((v) => startsWithVendor(key, v))) {
      for (const v of vendorSlugs) ids.add(`${v}/${catalogKeyOf(key, v)}`);
    } else {
      ids.add(withoutFirmware(key));
      alone = true;
    }
  }
  if (alone) for (const v of vendorSlugs) ids.add(`${v}/`);
  // Ids are ASCII, so UTF-16 order (the default sort's, without a comparator call per pair) is byte order.
  return [...ids].sort();
}

/**
 * Whether a CVE whose stored product keys are `keys` (cveProductKeys) names the catalog product `id`
 * (`<vendor-slug>/<catalog key>`): the id itself is stored, or its key alone with its vendor. Exactly when the id is
 * one of the CVE's vendors paired with the catalog key of one of its product names.
 */
export function cveNamesProduct(keys: readonly string[], id: string): boolean {
  const slash = id.indexOf('/');
  return (
    slash > 0 &&
    slash < id.length - 1 &&
    (keys.includes(id) || (keys.includes(id.slice(slash + 1)) && keys.includes(id.slice(0, slash + 1))))
  );
}

/** Display names of the ICS protocols (spec §4.1 list). */
export const PROTOCOL_NAMES: Record<IcsProtocol, string> = {
  modbus: 'Modbus',
  dnp3: 'DNP3',
  'opc-ua': 'OPC UA',
  'iec-61850': 'IEC 61850',
  profinet: 'PROFINET',
  'ethernet-ip': 'EtherNet/IP',
  bacnet: 'BACnet',
  ssh: 'SSH',
  http: 'HTTP',
  ftp: 'FTP',
};

/** The display name of a protocol key (the key itself when it is not one of the list). */
export function protocolName(key: string): string {
  return (PROTOCOL_NAMES as Record<string, string>)[key] ?? key;
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The vendor slug of a vendor part of an id: a slug as the catalog gives it is taken as it is (the catalog's own
 * ids never change meaning here); any other spelling is read as a vendor name the way the catalog reads the
 * sources' names (canonicalVendor: case, punctuation, company forms and the alias table), so "Siemens",
 * "SIEMENS AG" and "siemens_ag" are `siemens`. Null when it names no vendor.
 */
function vendorSlugOf(s: string): string | null {
  return SLUG.test(s) ? s : (canonicalVendor(s)?.slug ?? null);
}

/** A protocol name without case and punctuation: "OPC UA", "opc_ua" and "opc-ua" are one. */
const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const PROTOCOL_BY_SQUASHED = new Map<string, IcsProtocol>(ICS_PROTOCOLS.map((p) => [squash(p), p]));

/**
 * The stored key of an entity id, or why the id cannot name an entity of that type (its form only: whether the
 * catalog holds it is the caller's lookup). Spellings of one entity give one key (docs/watchlists.md "Spellings"),
 * so they are one entry and match the same CVEs: the id is trimmed; a vendor (alone or in front of a product) as
 * vendorSlugOf reads it; a product part as its product key (productKey: lower case, every other run of characters
 * one '-'); a protocol by its letters and digits ("Modbus", "OPC UA", "EtherNet/IP"); a CVE id upper-cased.
 */
export function entityKey(
  type: WatchEntityType,
  raw: string,
): { ok: true; key: string } | { ok: false; message: string } {
  const id = raw.trim();
  switch (type) {
    case 'vendor': {
      const slug = vendorSlugOf(id);
      return slug
        ? { ok: true, key: slug }
        : { ok: false, message: "must be a vendor slug from GET /api/v1/catalog/vendors, or the vendor's name" };
    }
    case 'product': {
      const cut = id.indexOf('/');
      const slug = cut > 0 ? vendorSlugOf(id.slice(0, cut).trim()) : null;
      const key = productKey(id.slice(cut + 1));
      return cut > 0 && slug && key
        ? { ok: true, key: `${slug}/${key}` }
        : {
            ok: false,
            message: 'must be a product id (<vendor-slug>/<product-key>) from GET /api/v1/catalog/products',
          };
    }
    case 'protocol': {
      const p = PROTOCOL_BY_SQUASHED.get(squash(id));
      return p
        ? { ok: true, key: p }
        : { ok: false, message: `must be one of ${ICS_PROTOCOLS.join(', ')} (GET /api/v1/catalog/protocols)` };
    }
    case 'cve':
      return isCveIdAnyCase(id)
        ? { ok: true, key: id.toUpperCase() }
        : { ok: false, message: 'must be a CVE id (CVE-YYYY-NNNN)' };
  }
}
