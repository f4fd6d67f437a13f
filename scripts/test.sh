#!/usr/bin/env bash
# `npm test`: infrastructure up, everything built, then the whole jest suite (files in parallel).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-infra.sh
npx turbo run build --output-logs=errors-only
results_dir="$(mktemp -d)"
results="$results_dir/jest.json"
set +e
node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js --json --outputFile="$results" "$@"
rc=$?
set -e
# One plain closing line with the counts, whatever the runner printed above it.
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`)' "$results" 2>/dev/null || true
rm -rf "$results_dir"
exit $rc
