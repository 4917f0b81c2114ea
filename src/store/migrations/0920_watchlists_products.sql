-- Watchlists (docs/watchlists.md) and the product catalog they take ids from.
--
-- watchlist_entries (migration 0200) held vendor slugs and protocol names for `ranked=true`. It now also holds
-- products (`<vendor-slug>/<product-key>`, an id of GET /api/v1/catalog/products) and single CVEs (the CVE id).
-- Its ids become random tenant ids (docs/tenant-ids.md): the identity counted every organization's entries.
ALTER TABLE watchlist_entries ALTER COLUMN id DROP IDENTITY IF EXISTS;
ALTER TABLE watchlist_entries ALTER COLUMN id SET DEFAULT vi_tenant_id();
ALTER TABLE watchlist_entries DROP CONSTRAINT IF EXISTS watchlist_entries_entity_type_check;
ALTER TABLE watchlist_entries ADD CONSTRAINT watchlist_entries_entity_type_check
  CHECK (entity_type IN ('vendor', 'product', 'protocol', 'cve'));
-- Who added it (the member; NULL once that member is gone). Display only.
ALTER TABLE watchlist_entries ADD COLUMN created_by bigint REFERENCES members(id) ON DELETE SET NULL;
-- The alert run reads every organization's entries by type and key.
CREATE INDEX watchlist_entries_by_key ON watchlist_entries (entity_type, entity_key);

-- The product key: lowercase ASCII letters and digits, every other run of characters one '-', none at the ends.
-- `productKey` in src/domain/watchlist.ts is the same function (a test holds them equal).
CREATE FUNCTION vi_product_key(name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT trim(both '-' from regexp_replace(lower(name), '[^a-z0-9]+', '-', 'g')) $$;

-- The product catalog (GET /api/v1/catalog/products): (vendor, product) pairs named by the corpus, rebuilt after
-- every import with the vendor catalog. A CVE naming one vendor pairs every product it names with that vendor;
-- a CVE naming several pairs only its primary vendor with its primary product (the document does not say which
-- of the other products is whose).
CREATE TABLE products (
  vendor_slug  text NOT NULL,
  product_key  text NOT NULL CHECK (product_key ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  name         text NOT NULL,
  cve_count    integer NOT NULL,
  PRIMARY KEY (vendor_slug, product_key)
);
CREATE INDEX products_by_name ON products (lower(name), vendor_slug, product_key);
