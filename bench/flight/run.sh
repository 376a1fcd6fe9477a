#!/usr/bin/env bash
# Runs the Flight benchmark once and prints its three JSON lines: our decoder and React's client
# over the same recorded ~1 MB stream (catalog-1mb.flight, recorded from catalog-1mb.tsx by
# packages/runtime/scripts/record-flight.mjs), then a small route rendered cold and warm through
# the real Node worker (the worker of runtime/tests/worker-fixture). Needs `npm ci` and Node 20+.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
runs="${RUNS:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build --quiet --release --manifest-path "$here/Cargo.toml"
bench="$here/target/release/abgen-bench-flight"

echo "rust-decoder $("$bench" decode "$here/catalog-1mb.flight" "$runs")"
echo "react-client $(node "$here/react-client.mjs" "$here/catalog-1mb.flight" "$runs")"
node "$repo/packages/runtime/scripts/bundle-worker.mjs" \
  "$repo/runtime/tests/worker-fixture/entry.tsx" "$work/worker.mjs" >/dev/null
echo "worker-render $("$bench" render "$work/worker.mjs" "$runs")"
