#!/usr/bin/env bash
# The second command: every test. Unit and API tests (cargo), then the
# built site and release binary in a real browser (Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
# Tests configure their own servers; a developer's settings must not leak in.
while IFS= read -r var; do unset "$var"; done < <(env | grep -o '^IMPRINT_[A-Z_]*' || true)

scripts/setup.sh

step "lints (rustfmt, clippy for the server and the wasm client)"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy -p app --target wasm32-unknown-unknown --features csr --quiet -- -D warnings

step "cargo tests"
cargo test --workspace --quiet

step "end-to-end tests (Playwright, headless Chromium)"
cargo build --release --quiet -p imprint --example standin_model
(cd end2end && npx playwright test)
