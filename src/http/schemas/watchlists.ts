// TypeBox schemas of the watchlist, the product and protocol catalogs and the CVE change history
// (docs/watchlists.md).
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope } from '../envelope.ts';
import { StringEnum } from './common.ts';
import { PageParams } from './cves.ts';
import { WATCH_ENTITY_TYPES } from '../../domain/watchlist.ts';
import { CHANGE_KINDS } from '../../domain/changes.ts';

// ---- watchlist ----

export const WatchEntry = Type.Object({
  id: Type.Integer({
    description: 'Random 15-digit id; reveals nothing about other organizations (docs/tenant-ids.md)',
    examples: [418239577103245],
  }),
  entity_type: StringEnum(WATCH_ENTITY_TYPES),
  entity_id: Type.String({
    description:
      'Vendor slug, product id (<vendor-slug>/<product-key>), protocol name or CVE id, as the catalogs give them',
  }),
  entity_name: Type.String({
    description: "The catalog's current name (the id itself when the catalog no longer holds it)",
  }),
  created_at: Type.String({ format: 'date-time' }),
});

export const WatchListQuery = Type.Object(
  {
    ...PageParams,
    entity_type: Type.Optional(StringEnum(WATCH_ENTITY_TYPES, { description: 'Only entries of this type' })),
  },
  { additionalProperties: false },
);

export const CreateWatch = Type.Object(
  {
    entity_type: StringEnum(WATCH_ENTITY_TYPES, { description: 'vendor, product, protocol or cve' }),
    entity_id: Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        'An id from GET /api/v1/catalog/vendors, /catalog/products, /catalog/protocols, or a CVE id; other spellings of the same vendor, product or protocol (case, punctuation, the vendor\'s name: "Siemens AG", "Siemens/SICAM A8000", "OPC UA") are the same entry, stored under the catalog id (docs/watchlists.md "Spellings")',
    }),
  },
  { additionalProperties: false, examples: [{ entity_type: 'protocol', entity_id: 'modbus' }] },
);

export const WatchEntryParams = Type.Object({
  entry_id: Type.String({ pattern: '^[0-9]{1,15}$', description: 'Watchlist entry id' }),
});

export const WatchEntryResponse = Envelope(WatchEntry, Type.Object({}));
export const WatchListResponse = CollectionEnvelope(WatchEntry, Type.Object({}));

// ---- catalogs ----

export const ProductCatalogQuery = Type.Object(
  {
    ...PageParams,
    vendor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[a-z0-9][a-z0-9-]*$',
        description: 'Vendor slug (GET /api/v1/catalog/vendors)',
      }),
    ),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Substring of the product name or key' }),
    ),
  },
  { additionalProperties: false },
);

export const ProductListResponse = CollectionEnvelope(
  Type.Object({
    id: Type.String({
      description:
        'Product id for the watchlist: <vendor-slug>/<product-key>; the key is the name in lower-case words joined by "-", without the vendor in front and without a trailing "firmware" (linux/kernel for "Linux Kernel" and "kernel")',
    }),
    name: Type.String(),
    vendor_slug: Type.String(),
    vendor: Type.String(),
    cve_count: Type.Integer({
      description: 'CVEs pairing this product with this vendor (docs/watchlists.md "Product catalog")',
    }),
  }),
  Type.Object({}),
);

export const ProtocolCatalogQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Substring of the protocol id or name' }),
    ),
  },
  { additionalProperties: false },
);

export const ProtocolListResponse = CollectionEnvelope(
  Type.Object({
    id: Type.String({ description: 'Protocol name as GET /api/v1/cves/protocol/{name} and the watchlist take it' }),
    name: Type.String(),
    cve_count: Type.Integer(),
  }),
  Type.Object({}),
);

// ---- change history ----

const Values = Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true });

export const CveChange = Type.Object({
  seq: Type.Integer({ description: 'Feed position (increasing in commit order)' }),
  cve_id: Type.String(),
  kind: StringEnum(CHANGE_KINDS),
  summary: Type.String({ description: 'One line: "added to KEV", "EPSS percentile 45 → 92"' }),
  before: Values,
  after: Values,
  changed_at: Type.String({ format: 'date-time' }),
});

export const HistoryQuery = Type.Object({ ...PageParams }, { additionalProperties: false });
export const HistoryResponse = CollectionEnvelope(CveChange, Type.Object({ cve_id: Type.String() }));

const KIND_LIST = `^(${CHANGE_KINDS.join('|')})(,(${CHANGE_KINDS.join('|')}))*$`;

export const FeedQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Only changes recorded at or after this time (ISO 8601 with offset)',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,18}$',
        description: 'meta.next_cursor of the previous page: continue after it',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    kind: Type.Optional(
      Type.String({ pattern: KIND_LIST, description: `Only these kinds, comma-separated: ${CHANGE_KINDS.join(', ')}` }),
    ),
  },
  { additionalProperties: false },
);

export const FeedResponse = Envelope(
  Type.Array(CveChange),
  Type.Object({
    next_cursor: Type.String({ description: 'Pass as cursor to read on; unchanged when nothing followed' }),
    has_more: Type.Boolean({ description: 'More changes follow now (read again with next_cursor)' }),
  }),
);
