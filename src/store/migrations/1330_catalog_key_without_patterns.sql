-- vi_catalog_product_key (migration 1170) without regular expressions: the vendor's slug in front was cut by a
-- pattern built from the slug, and PostgreSQL keeps only a few compiled patterns, so with thousands of vendors every
-- call compiled one (the product catalog's rebuild keys each spelling: 23,380 on the 44k CVE records, 155 ms →
-- 58 ms). The same function: the key without "<vendor-slug>-" in front when something follows it, then
-- without a trailing "-firmware" when something precedes it (`catalogProductKey` in src/domain/watchlist.ts; a
-- property test holds them equal). Keys are [a-z0-9-], so lengths are bytes and characters alike.
CREATE OR REPLACE FUNCTION vi_catalog_product_key(name text, vendor_slug text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
  AS $$
DECLARE
  k text := vi_product_key(name);
  n int := length(vendor_slug);
BEGIN
  IF length(k) > n + 1 AND left(k, n + 1) = vendor_slug || '-' THEN
    k := substr(k, n + 2);
  END IF;
  IF length(k) > 9 AND right(k, 9) = '-firmware' THEN
    k := left(k, -9);
  END IF;
  RETURN k;
END
$$;
