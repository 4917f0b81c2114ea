#!/bin/sh
# First start to first answer: `vulnintel serve` on a freshly created, empty database (so the bundled snapshot,
# CVE records included, is imported before listening), timed from the command to the first 200 of
# GET /api/v1/health/ping; then the server is stopped. The command is `npm start`'s (package.json). Prints `first_answer_s=<seconds>`.
# Usage: sh bench/first-start.sh [database=vi_first_start] [port=18931]   (run from the checkout; PostgreSQL at 127.0.0.1:5432)
#        EMBEDDED=1 sh bench/first-start.sh   the quickstart: no DATABASE_URL, so the app starts its own embedded
#                                             PostgreSQL in a fresh data directory (removed afterwards)
set -e
DB=${1:-vi_first_start}
PORT=${2:-18931}
if [ -n "$EMBEDDED" ]; then
  DIR=$(mktemp -d /tmp/vi-first-XXXXXX)
  set -- env -u DATABASE_URL VULNINTEL_DATA_DIR="$DIR"
else
  psql -h 127.0.0.1 -U postgres -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
  set -- env DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB
fi
start=$(date +%s.%N)
"$@" PORT=$PORT HOST=127.0.0.1 LOG_LEVEL=${LOG_LEVEL:-warn} node --max-semi-space-size=32 bin/vulnintel.js serve >/tmp/first-start-$PORT.log 2>&1 &
pid=$!
until curl -fs "http://127.0.0.1:$PORT/api/v1/health/ping" >/dev/null 2>&1; do
  kill -0 $pid 2>/dev/null || { echo "server exited; see /tmp/first-start-$PORT.log"; exit 1; }
  sleep 0.2
done
end=$(date +%s.%N)
echo "first_answer_s=$(echo "$end - $start" | bc)"
kill -TERM $pid
wait $pid 2>/dev/null || true
if [ -n "$EMBEDDED" ]; then
  # As root the cluster lives outside a data directory the postgres user cannot enter, behind the `pg` link
  # (src/store/embedded.ts clusterDirForRoot): remove it too, or every run leaves a 1.8 GB cluster behind.
  [ -L "$DIR/pg" ] && rm -rf "$(dirname "$(readlink -f "$DIR/pg")")"
  rm -rf "$DIR"
fi
