#!/usr/bin/env bash
# Runs the Flight benchmark and prints its JSON lines: our decoder and React's client over the
# same recorded ~1 MB stream (catalog-1mb.flight, recorded from catalog-1mb.tsx by
# packages/runtime/scripts/record-flight.mjs), interleaved for ROUNDS rounds of RUNS decodes each
# (the two alternate, so machine load hits both alike), with the ratio of their medians; then the
# decoder's growth over synthetic streams (1 to 1,000 boundaries, 0.25 to 4 MB); then callgrind
# instruction counts of one decode of the recorded stream and of each boundary shape, when
# valgrind is installed; then a small route rendered cold
# and warm through the real Node worker (the worker of runtime/tests/worker-fixture).
# Needs `npm ci` and Node 20+.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${RUNS:-20}"
rounds="${ROUNDS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build --quiet --release --manifest-path "$here/Cargo.toml"
bench="$here/target/release/abgen-bench-flight"
stream="$here/catalog-1mb.flight"

for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    echo "rust-decoder $("$bench" decode "$stream" "$runs")" | tee -a "$work/decode"
    echo "react-client $(node "$here/react-client.mjs" "$stream" "$runs")" | tee -a "$work/decode"
  else
    echo "react-client $(node "$here/react-client.mjs" "$stream" "$runs")" | tee -a "$work/decode"
    echo "rust-decoder $("$bench" decode "$stream" "$runs")" | tee -a "$work/decode"
  fi
done
python3 - "$work/decode" <<'EOF'
import json, statistics, sys
rounds = {"rust-decoder": [], "react-client": []}
for line in open(sys.argv[1]):
    name, text = line.split(" ", 1)
    rounds[name].append(json.loads(text))
ours = statistics.median(r["medianMs"] for r in rounds["rust-decoder"])
react = statistics.median(r["medianMs"] for r in rounds["react-client"])
best_ours = min(r["bestMs"] for r in rounds["rust-decoder"])
best_react = min(r["bestMs"] for r in rounds["react-client"])
print("decode-summary " + json.dumps({
    "rounds": len(rounds["rust-decoder"]), "oursMedianMs": ours, "reactMedianMs": react,
    "reactOverOurs": react / ours, "oursBestMs": best_ours, "reactBestMs": best_react,
    "reactOverOursBest": best_react / best_ours}))
EOF

"$bench" growth 9 | sed 's/^/growth /'

if command -v valgrind >/dev/null; then
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    "$bench" decode-once "$stream" >/dev/null 2>"$work/callgrind.log"
  instructions="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/callgrind.log")"
  echo "callgrind-decode {\"instructions\": $instructions, \"what\": \"one decode of catalog-1mb.flight, whole process\"}"
  # The growth shapes again, as instruction counts (repeatable where wall time is not).
  for boundaries in 1 10 100 1000; do
    "$bench" synthetic "$boundaries" $((1 << 20)) "$work/synthetic.flight" >/dev/null
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
      "$bench" decode-once "$work/synthetic.flight" >/dev/null 2>"$work/callgrind.log"
    instructions="$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/callgrind.log")"
    bytes="$(stat -c %s "$work/synthetic.flight")"
    echo "callgrind-growth {\"boundaries\": $boundaries, \"bytes\": $bytes, \"instructions\": $instructions}"
  done
fi

node "$repo/packages/runtime/scripts/bundle-worker.mjs" \
  "$repo/runtime/tests/worker-fixture/entry.tsx" "$work/worker.mjs" >/dev/null
echo "worker-render $("$bench" render "$work/worker.mjs" "$runs")"
