#!/bin/sh
# Digest of the read model a fresh import leaves (correctness check for import performance work): one
# md5 per table over its rows in key order, with the columns that hold the time of the run left out (enriched_at,
# updated_at, the document's run-time stamps), so two fresh imports of the same inputs print the same lines
# whatever code imported them. Compare the output of a database imported before and after a change.
# Usage: sh bench/read-model-digest.sh DATABASE
set -e
DB=${1:?usage: sh bench/read-model-digest.sh DATABASE}
q() { printf '%s ' "$1"; psql -h 127.0.0.1 -U postgres -d "$DB" -Atc "$2"; }
# Keys of the document set from the run's clock (enrichment time), removed before hashing.
DOC="(doc #- '{temporal,enriched_at}' #- '{sage,generated_at}')"
q cves "SELECT count(*) || ' ' || md5(string_agg(cve_id || ':' || md5(($DOC)::text) || ':' || (to_jsonb(c) - 'enriched_at' - 'doc' - 'doc_hash' - 'search')::text || ':' || search::text, ',' ORDER BY cve_id)) FROM cves c"
q cve_sources "SELECT count(*) || ' ' || md5(string_agg(cve_id || '|' || source || '|' || source_key || '|' || record_hash || '|' || md5(record::text), ',' ORDER BY cve_id, source, source_key)) FROM cve_sources"
q cve_ranges "SELECT count(*) || ' ' || md5(string_agg((to_jsonb(r))::text, ',' ORDER BY cve_id, ord)) FROM cve_ranges r"
q cve_range_state "SELECT count(*) || ' ' || md5(string_agg(cve_id || ':' || hash, ',' ORDER BY cve_id)) FROM cve_range_state"
q cve_facet_counts "SELECT count(*) || ' ' || md5(string_agg((to_jsonb(f))::text, ',' ORDER BY (to_jsonb(f))::text)) FROM cve_facet_counts f"
q cve_stat_counts "SELECT count(*) || ' ' || md5(string_agg((to_jsonb(s))::text, ',' ORDER BY (to_jsonb(s))::text)) FROM cve_stat_counts s"
q cve_list_keys "SELECT count(*) || ' ' || md5(string_agg((to_jsonb(k))::text, ',' ORDER BY (to_jsonb(k))::text)) FROM cve_list_keys k"
q vendors "SELECT count(*) || ' ' || md5(string_agg((to_jsonb(v) - 'updated_at')::text, ',' ORDER BY (to_jsonb(v))::text)) FROM vendors v"
q products "SELECT count(*) || ' ' || md5(string_agg((to_jsonb(p) - 'updated_at')::text, ',' ORDER BY (to_jsonb(p))::text)) FROM products p"
