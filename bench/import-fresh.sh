#!/bin/sh
# The import benchmark's command: `vulnintel import` into a freshly created, empty database (so the bulk first
# import). Compare with bench/copy-baseline.ts over the same corpus directory, in the same run.
# Usage: sh bench/import-fresh.sh [database=vi_import] [inputs…=bench/out/corpus snapshot/]
#        (run from the checkout; PostgreSQL at 127.0.0.1:5432)
set -e
DB=${1:-vi_import}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- bench/out/corpus snapshot/
psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB exec node bin/vulnintel.js import "$@"
