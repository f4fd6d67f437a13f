#!/usr/bin/env bash
# `npm test`: infrastructure up, everything built, then the whole jest suite (files in parallel).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-infra.sh
npx turbo run build --output-logs=errors-only
exec node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js "$@"
