-- Members of a product family (docs/correlation.md §2 "Members"): a nameplate that names a family ("SIMATIC S7-1500")
-- finds the ranges of the family's products ("SIMATIC S7-1500 CPU 1511-1 PN") by a prefix of their product key:
-- `product_key ~>=~ 'simatic s7 1500 ' AND product_key ~<~ 'simatic s7 1500!'`. The lookup index takes the
-- pattern operator class, which orders by bytes whatever the database's collation (the default class follows the
-- collation, where spaces and punctuation do not order as bytes) and still serves the equality lookups.
DROP INDEX cve_ranges_product;
CREATE INDEX cve_ranges_product ON cve_ranges (vendor_slug, product_key text_pattern_ops);
