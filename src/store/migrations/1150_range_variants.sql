-- Product variants (docs/correlation.md §2 "Variants"): a range whose product ends with a note naming a variant
-- ("SIMATIC S7-1500 CPU 1511-1 PN (6ES7511-1AK02-0AB0)", "… (EU)") keeps the key of the product without the note
-- in base_key, so a nameplate that names the product without the variant finds it (and is answered needs_review:
-- the variant decides). Filled when the ranges are rebuilt (ENRICHMENT_VERSION 1.4 re-enriches a stored corpus).
ALTER TABLE cve_ranges ADD COLUMN base_key text;
CREATE INDEX cve_ranges_variant ON cve_ranges (vendor_slug, base_key) WHERE base_key IS NOT NULL;
