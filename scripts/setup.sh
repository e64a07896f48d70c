#!/usr/bin/env bash
# Installs what building and testing Imprint needs, skipping whatever is
# already there, then builds the dashboard (dist/) and the release server.
#   scripts/setup.sh            everything
#   SETUP_SKIP_BUILD=1 ...      tools only
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

TRUNK_VERSION=0.21.14
BINARYEN_DIR=end2end/node_modules/.bin

command -v cargo >/dev/null || die "Rust is not installed: install it with rustup, then run this again."

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION"; then
  step "installing trunk $TRUNK_VERSION (about 8 minutes on 2 cores, once)"
  cargo install --locked "trunk@$TRUNK_VERSION"
fi

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, ""); print; exit}' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $BINDGEN_VERSION\$"; then
  step "installing wasm-bindgen-cli $BINDGEN_VERSION (about 3 minutes, once)"
  # Without --locked: its lockfile wants a crate version the registry lacks.
  cargo install wasm-bindgen-cli --version "$BINDGEN_VERSION"
fi

command -v node >/dev/null && command -v npm >/dev/null || need_apt nodejs npm
[ -x /usr/bin/chromium ] || need_apt chromium
# Speech for the recogniser's tests: espeak-ng speaks, sox resamples to 16 kHz.
command -v espeak-ng >/dev/null && command -v sox >/dev/null || need_apt espeak-ng sox
# zopfli writes the served .gz of the site 4 % smaller than gzip -9
# (scripts/compress-site.mjs; the same deflate format every browser reads).
command -v zopfli >/dev/null || need_apt zopfli
# The natural test voice (scripts/piper-voice.sh) lives in a venv of its own.
python3 -m venv --help >/dev/null 2>&1 || need_apt python3-venv

# Playwright and binaryen (wasm-opt 132; Debian's 108 breaks the wasm).
stamp=end2end/node_modules/.installed-from-lock
if [ ! -f "$stamp" ] || ! cmp -s end2end/package-lock.json "$stamp"; then
  step "installing the end-to-end test packages (npm ci)"
  (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
  cp end2end/package-lock.json "$stamp"
fi

[ "${SETUP_SKIP_BUILD:-}" = 1 ] && exit 0

export PATH="$PWD/$BINARYEN_DIR:$PATH"
step "building the dashboard (trunk build --release)"
cargo fetch --quiet
trunk build --release --offline
step "building the server (cargo build --release)"
cargo build --release -p imprint
