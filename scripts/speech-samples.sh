#!/usr/bin/env bash
# The recogniser's accuracy set: every sentence below said by espeak-ng in
# two voices at two speeds, resampled by sox to 16 kHz mono 16-bit WAVs,
# with a manifest for `cargo run --release -p imprint --example eval_speech`.
#
#   scripts/speech-samples.sh [DIR]   default DIR:
#                                     ${XDG_CACHE_HOME:-$HOME/.cache}/imprint/speech-samples
#
# manifest.tsv, one utterance a line, tab-separated:
#   file  kind  text  options
# kind is request, option (an answer to a question whose options, separated
# by "|", are the recogniser's hint), ordinal (likewise) or stop. Nothing
# here is committed: the folder is rebuilt from this list.
set -euo pipefail

DIR="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/imprint/speech-samples}"
VOICES=(en-us en-gb)
SPEEDS=(140 180)

PROJECTS="Imprint|Billing|Garden"
WHEN="Tomorrow morning|This evening|Next week"
WHO="The dentist|The plumber|The school"
SENTENCES=(
  "request;;Remind me to call Anna tomorrow at nine"
  "request;;What is the plumber's number"
  "request;;Remind me to water the garden on Sunday"
  "request;;Add milk and eggs to the shopping list"
  "request;;When is my dentist appointment"
  "request;;Tell me what I saved about the car"
  "request;;Remind me to pay the electricity bill on Friday"
  "request;;What did I say about the billing project"
  "request;;Note that Sarah likes green tea"
  "request;;Remember that the meeting moved to three o'clock"
  "option;$PROJECTS;Billing"
  "option;$PROJECTS;Imprint"
  "option;$PROJECTS;Garden"
  "option;$WHEN;Tomorrow morning"
  "option;$WHEN;Next week"
  "option;$WHO;The plumber"
  "ordinal;$PROJECTS;The second one"
  "ordinal;$PROJECTS;The first one"
  "ordinal;$PROJECTS;The last one"
  "stop;;Stop"
)

for tool in espeak-ng sox; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing: run scripts/setup.sh" >&2; exit 1; }
done
mkdir -p "$DIR"
rm -f "$DIR"/*.wav "$DIR/manifest.tsv"
raw=$(mktemp --suffix=.wav)
trap 'rm -f "$raw"' EXIT

n=0
for line in "${SENTENCES[@]}"; do
  # ";" not a tab: read would merge the empty options' two tabs.
  IFS=';' read -r kind options text <<<"$line"
  for voice in "${VOICES[@]}"; do
    for speed in "${SPEEDS[@]}"; do
      n=$((n + 1))
      file=$(printf '%03d-%s-%s.wav' "$n" "$voice" "$speed")
      espeak-ng -v "$voice" -s "$speed" -w "$raw" "$text"
      sox "$raw" -r 16000 -c 1 -b 16 "$DIR/$file"
      printf '%s\t%s\t%s\t%s\n' "$file" "$kind" "$text" "$options" >>"$DIR/manifest.tsv"
    done
  done
done
echo "$n utterances in $DIR (manifest.tsv)" >&2
