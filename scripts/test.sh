#!/usr/bin/env bash
# The second command: every test. Unit and API tests (cargo), then the
# built site and release binary in a real browser (Playwright) with the
# scripted stand-in model, then the speech tier (the recogniser through the
# browser, and its accuracy on a natural voice), then the real-model tier: the real local model
# (llama-server + Qwen2.5-Coder-0.5B), after every build, never beside one.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
# Tests configure their own servers; a developer's settings must not leak in.
while IFS= read -r var; do unset "$var"; done < <(env | grep -o '^IMPRINT_[A-Z_]*' || true)
# One full build, not an edit loop: incremental caches would only take disk
# (they were 13 GB beside the test binaries).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# The local model (downloads and a C++ build, about 10 minutes on a new
# machine) is set up beside the Rust builds, which leave a core idle while
# they link; every test waits for it, so none runs beside a build.
model_setup_log=$(mktemp)
setsid scripts/local-model.sh ensure >"$model_setup_log" 2>&1 &
model_setup_pid=$!
trap 'kill -- -"$model_setup_pid" 2>/dev/null || true' EXIT

scripts/setup.sh

step "lints (rustfmt, clippy for the server and the wasm client, tsc for the end-to-end tests)"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy -p app --target wasm32-unknown-unknown --features csr --quiet -- -D warnings
(cd end2end && npx tsc --noEmit -p .)

step "cargo tests"
cargo test --workspace --quiet --no-run
step "waiting for the local model's set-up (log: $model_setup_log)"
if ! wait "$model_setup_pid"; then
  cat "$model_setup_log" >&2
  die "the local model could not be set up (the output above says why)"
fi
cat "$model_setup_log"
rm -f "$model_setup_log"
trap - EXIT
# The recogniser's test hears real speech (the weights came with the model).
cargo test --workspace --quiet

step "end-to-end tests (Playwright, headless Chromium)"
cargo build --release --quiet -p imprint --example standin_model
(cd end2end && npx playwright test --grep-invert "@real-model|@speech")

step "speech tier: espeak-ng and Piper speech through Chromium's fake microphone to Imprint's recogniser"
# Piper (the natural voice) and the accuracy sets, set up and spoken once
# (a no-op after). No Piper, no pass: the set-up fails loudly.
scripts/speech-samples.sh
# One worker: each spoken utterance is a second of CPU for the recogniser.
(cd end2end && npx playwright test --grep @speech --workers=1)
# The recogniser's targets on the natural voice, quiet, under noise and
# under other people's talk.
cargo run --release --quiet -p imprint --example eval_speech -- --check natural snr10 snr5 babble babble-under

step "real-model tier: the local model (llama-server + Qwen2.5-Coder-0.5B-Instruct)"
port=$(free_port)
model_log=$(mktemp)
scripts/local-model.sh start "$port" >"$model_log" 2>&1 &
model_pid=$!
trap 'kill "$model_pid" 2>/dev/null || true; rm -f "$model_log"' EXIT
# Event-driven: grep wakes on each line llama-server writes.
exec 3< <(tail -n +1 -F "$model_log" 2>/dev/null)
tail_pid=$!
if ! timeout 180 grep -q -m1 "listening on" <&3; then
  cat "$model_log" >&2
  die "llama-server did not start on 127.0.0.1:$port within 180 s"
fi
kill "$tail_pid" 2>/dev/null || true
exec 3<&-
export IMPRINT_REAL_MODEL_URL="http://127.0.0.1:$port/v1"
cargo test --quiet -p imprint --test real_model -- --ignored --test-threads=1
(cd end2end && npx playwright test --grep @real-model --workers=1)
