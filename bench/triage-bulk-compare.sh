#!/usr/bin/env bash
# The bulk decision against an earlier commit's, side by side in one run (docs/benchmarks.md "Triage decisions"):
# the earlier commit's tree is exported (git archive, no worktree) to a temporary directory and given this
# checkout's bench/triage-vex.ts, so both sides run the same bench and differ only in src/ and the migrations (each
# side's fresh database comes from its own migrations). Rounds alternate which side goes first; the medians and
# their ratio are printed at the end, with the load average of each round.
# Usage: bench/triage-bulk-compare.sh BASE_COMMIT [ROUNDS=3]   (from the checkout's root)
set -euo pipefail
base=${1:?usage: bench/triage-bulk-compare.sh BASE_COMMIT [ROUNDS]}
rounds=${2:-3}
dir=$(mktemp -d /tmp/vi-bulk-base.XXXXXX)
trap 'rm -rf "$dir"' EXIT
git archive "$base" | tar -x -C "$dir"
ln -s "$(pwd)/node_modules" "$dir/node_modules"
cp bench/triage-vex.ts "$dir/bench/triage-vex.ts"
out=$(mktemp /tmp/vi-bulk-out.XXXXXX)
run() { # side, directory
  (cd "$2" && BENCH_ONLY=bulk npx tsx bench/triage-vex.ts) | sed "s/^/$1 /" | tee -a "$out"
}
for i in $(seq "$rounds"); do
  echo "round $i: $(uptime | sed 's/.*load/load/')"
  if (( i % 2 )); then run before "$dir"; run after .; else run after .; run before "$dir"; fi
done
# Medians of each side and figure, and after/before.
awk '
  /bulk: /         { split($0, a, " in "); v = a[2] + 0; k = $1 " create";  x[k] = x[k] " " v }
  /bulk replace: / { split($0, a, " in "); v = a[2] + 0; k = $1 " replace"; x[k] = x[k] " " v }
  function median(s,   n, a, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)] }
  END { for (f in x) m[f] = median(x[f])
    for (c in m) if (c ~ /^after/) { split(c, p, " "); b = m["before " p[2]]
      printf "%s: before median %d ms (%s), after median %d ms (%s), after/before %.2f\n", p[2], b, x["before " p[2]], m[c], x[c], (b ? m[c] / b : 0) } }' "$out"
rm -f "$out"
