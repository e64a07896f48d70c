#!/usr/bin/env bash
# The first command: sets up whatever is missing, builds, and runs Imprint
# on http://127.0.0.1:8420 (IMPRINT_ADDR). Extra arguments go to `imprint`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
scripts/setup.sh
step "starting Imprint"
exec target/release/imprint "$@"
