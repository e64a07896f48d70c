#!/usr/bin/env bash
# The first command: sets up whatever is missing, builds, and runs Imprint
# on http://127.0.0.1:8420 (IMPRINT_ADDR). Extra arguments go to `imprint`.
#
# With no model configured (no IMPRINT_CHAT_PROVIDER / IMPRINT_CHAT_BASE_URL),
# it also sets up the built-in local model (llama-server + Qwen2.5-Coder-0.5B,
# once, cached), starts it on a free loopback port and stops it with Imprint.
# If that fails, Imprint still starts and says how to connect a model.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

model_pid=""
setup_pid=""
stop_model() {
  [ -n "$setup_pid" ] && kill -- -"$setup_pid" 2>/dev/null
  [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null || true
}
trap stop_model EXIT INT TERM

builtin_model=""
[ -z "${IMPRINT_CHAT_PROVIDER:-}" ] && [ -z "${IMPRINT_CHAT_BASE_URL:-}" ] && builtin_model=1
if [ -n "$builtin_model" ]; then
  # Set up beside the Rust builds (a new machine: about 10 minutes, the
  # C++ build of llama-server, which fills the core the builds leave idle).
  setup_log="${TMPDIR:-/tmp}/imprint-local-model-setup.log"
  step "setting up the local model in the background (log: $setup_log)"
  setsid scripts/local-model.sh ensure >"$setup_log" 2>&1 &
  setup_pid=$!
fi

scripts/setup.sh

if [ -n "$builtin_model" ]; then
  step "the local model (IMPRINT_CHAT_PROVIDER is not set)"
  ready=1
  wait "$setup_pid" || ready=""
  setup_pid=""
  cat "$setup_log"
  if [ -n "$ready" ]; then
    port=$(free_port)
    scripts/local-model.sh start "$port" >"${TMPDIR:-/tmp}/imprint-llama-server.log" 2>&1 &
    model_pid=$!
    # The built-in model's address, not a fixed provider: the Model page
    # can still switch to another model.
    export IMPRINT_LOCAL_MODEL_URL="http://127.0.0.1:$port/v1"
    echo "llama-server starting on 127.0.0.1:$port (log: ${TMPDIR:-/tmp}/imprint-llama-server.log)"
  else
    echo "The local model could not be set up; Imprint starts without it (see the README to connect another model)." >&2
  fi
fi

step "starting Imprint"
target/release/imprint "$@"
