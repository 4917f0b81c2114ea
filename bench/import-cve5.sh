#!/bin/sh
# Import throughput of the CVE Program records (target: >= 3,000 records/s): `vulnintel import` of
# snapshot/cve5/ (44,130 CVE Record 5 records) into a freshly created, empty database, timed whole. Prints the
# importer's summary and `records_per_s`.
# Usage: sh bench/import-cve5.sh [database=vi_import_cve5] [inputs…=snapshot/cve5/]   (run from the checkout)
set -e
DB=${1:-vi_import_cve5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- snapshot/cve5/
psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
start=$(date +%s.%N)
DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB node bin/vulnintel.js import "$@" 2>/dev/null | tail -5
end=$(date +%s.%N)
n=$(psql -h 127.0.0.1 -U postgres -d "$DB" -Atc "SELECT count(*) FROM cve_sources WHERE source = 'cve5'")
echo "cve5_records=$n seconds=$(echo "$end - $start" | bc) records_per_s=$(echo "$n / ($end - $start)" | bc)"
