#!/bin/sh
# The import benchmark's command: `vulnintel import` of the corpus pages and the bundled snapshot into a freshly
# created, empty database (so the bulk first import). Compare with bench/copy-baseline.ts in the same run.
# Usage: sh bench/import-fresh.sh [database=vi_import]   (run from the checkout; PostgreSQL at 127.0.0.1:5432)
set -e
DB=${1:-vi_import}
psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB exec node bin/vulnintel.js import bench/out/corpus snapshot/
