-- ANALYZE of cves (the end of a bulk first import, and autovacuum) keeps statistics only for the columns that queries
-- filter, join, group or order by. These ten are only ever selected (cards, details, feeds, alerts): their
-- statistics guided no plan, yet sorting the sample's titles by collation alone was a third of the 44k import's
-- ANALYZE (680 ms → 470 ms). `doc` has none since migration 1120.
ALTER TABLE cves
  ALTER COLUMN title SET STATISTICS 0,
  ALTER COLUMN bsid SET STATISTICS 0,
  ALTER COLUMN doc_hash SET STATISTICS 0,
  ALTER COLUMN enriched_at SET STATISTICS 0,
  ALTER COLUMN kev_added_at SET STATISTICS 0,
  ALTER COLUMN modified_at SET STATISTICS 0,
  ALTER COLUMN primary_vendor SET STATISTICS 0,
  ALTER COLUMN primary_product SET STATISTICS 0,
  ALTER COLUMN cve_year SET STATISTICS 0,
  ALTER COLUMN cve_seq SET STATISTICS 0;
