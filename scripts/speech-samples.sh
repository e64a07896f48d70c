#!/usr/bin/env bash
# The recogniser's accuracy sets, for
# `cargo run --release -p imprint --example eval_speech`: every sentence
# below said
#   espeak/   by espeak-ng in two voices at two speeds (a formant voice:
#             far harder for Whisper than a person);
#   natural/  by Piper's en_US-joe-medium voice (scripts/piper-voice.sh) at
#             length_scale 1.0 and 1.2;
#   snr10/ snr5/   the natural set under brown noise or a kitchen-like hum
#             (50/100/150 Hz mains hum over pink noise) at 10 and 5 dB SNR;
#   babble/   no answer, only two other Piper sentences at -6 dB, as if
#             said across the room while a question waits;
#   babble-under/   the natural set with those two sentences talking
#             under the speaker, 6 dB below the speaker's level;
# resampled by sox to 16 kHz mono 16-bit WAVs, each set with a manifest.
#
#   scripts/speech-samples.sh [DIR]   default DIR:
#                                     ${XDG_CACHE_HOME:-$HOME/.cache}/imprint/speech-samples
#
# Made once: DIR/.stamp holds this script's sha256 and Piper's pin, and a
# second run with both unchanged is a no-op. Piper is set up first
# (scripts/piper-voice.sh ensure); if it cannot be, this fails.
#
# SET/manifest.tsv, one utterance a line, tab-separated:
#   file  kind  text  options
# kind is request, option (an answer to a question whose options, separated
# by "|", are the recogniser's hint), ordinal (likewise), stop, or babble
# (nothing addressed to Echo: text is what was said in the background).
# Nothing here is committed: the folder is rebuilt from this list.
set -euo pipefail
# -R: the same noise every time; -V1: no clipping warnings (mixes are scaled).
export SOX_OPTS='-R -V1'

DIR=$(realpath -m "${1:-${XDG_CACHE_HOME:-$HOME/.cache}/imprint/speech-samples}")
cd "$(dirname "$0")"
VOICES=(en-us en-gb)
SPEEDS=(140 180)
SCALES=(1.0 1.2)

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
  "request;;Start a timer for ten minutes"
  "request;;Star the message from Anna"
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
# Background talk: two sentences at once, neither an answer.
BABBLE=(
  "Did you see the match last night?|I think it will rain later."
  "Pass me the salt, please.|We should leave at six."
  "The bus was late again today.|Have you fed the cat?"
  "I can't find my keys anywhere.|Let's have pasta for dinner."
)

for tool in espeak-ng sox sha256sum; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing: run scripts/setup.sh" >&2; exit 1; }
done
./piper-voice.sh ensure
stamp=$(printf '%s\n' "$(sha256sum <"$(basename "$0")")" "$(cat "$(./piper-voice.sh path)/.stamp")")
if [ -f "$DIR/.stamp" ] && [ "$(cat "$DIR/.stamp")" = "$stamp" ]; then
  echo "speech samples: ready ($DIR)" >&2
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR"/{espeak,natural,snr10,snr5,babble,babble-under}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

to16k() { sox "$1" -r 16000 -c 1 -b 16 "$2"; }

# espeak-ng
n=0
for line in "${SENTENCES[@]}"; do
  # ";" not a tab: read would merge the empty options' two tabs.
  IFS=';' read -r kind options text <<<"$line"
  for voice in "${VOICES[@]}"; do
    for speed in "${SPEEDS[@]}"; do
      n=$((n + 1))
      file=$(printf '%03d-%s-%s.wav' "$n" "$voice" "$speed")
      espeak-ng -v "$voice" -s "$speed" -w "$work/raw.wav" "$text"
      to16k "$work/raw.wav" "$DIR/espeak/$file"
      printf '%s\t%s\t%s\t%s\n' "$file" "$kind" "$text" "$options" >>"$DIR/espeak/manifest.tsv"
    done
  done
done

# Piper: every sentence at each length scale, the voice loaded once.
n=0
: >"$work/piper.tsv"
for line in "${SENTENCES[@]}"; do
  IFS=';' read -r kind options text <<<"$line"
  for scale in "${SCALES[@]}"; do
    n=$((n + 1))
    file=$(printf '%03d-joe-%s.wav' "$n" "$scale")
    printf '%s\t%s\t%s.\n' "$scale" "$work/$file" "$text" >>"$work/piper.tsv"
    printf '%s\t%s\t%s\t%s\n' "$file" "$kind" "$text" "$options" >>"$DIR/natural/manifest.tsv"
  done
done
b=0
for pair in "${BABBLE[@]}"; do
  b=$((b + 1))
  printf '1.0\t%s\t%s\n' "$work/babble-$b-a.wav" "${pair%%|*}" >>"$work/piper.tsv"
  printf '1.0\t%s\t%s\n' "$work/babble-$b-b.wav" "${pair##*|}" >>"$work/piper.tsv"
done
./piper-voice.sh speak <"$work/piper.tsv"
while IFS=$'\t' read -r file _; do
  to16k "$work/$file" "$DIR/natural/$file"
done <"$DIR/natural/manifest.tsv"

# Noise under the natural set, scaled to the speech's RMS for the SNR.
rms() { sox "$1" -n stat 2>&1 | awk '/RMS +amplitude/ {print $3}'; }
noise() { # KIND SECONDS OUT
  case "$1" in
    brown) sox -n -r 16000 -c 1 -b 16 "$3" synth "$2" brownnoise ;;
    hum)
      sox -n -r 16000 -c 4 -b 16 "$work/hum4.wav" synth "$2" sine 50 sine 100 sine 150 pinknoise
      sox "$work/hum4.wav" -c 1 "$3" remix 1v0.5,2v0.3,3v0.15,4v0.2 ;;
  esac
}
for snr in 10 5; do
  i=0
  while IFS=$'\t' read -r file kind text options; do
    i=$((i + 1))
    kinds=(brown hum)
    kindof=${kinds[$((i % 2))]}
    speech="$DIR/natural/$file"
    seconds=$(soxi -D "$speech")
    noise "$kindof" "$seconds" "$work/noise.wav"
    gain=$(awk -v s="$(rms "$speech")" -v n="$(rms "$work/noise.wav")" -v snr="$snr" \
      'BEGIN { printf "%.6f", (s / n) / (10 ^ (snr / 20)) }')
    # Both at 0.7: the sum stays in range, the ratio is the same.
    sox -m -v 0.7 "$speech" -v "$(awk -v g="$gain" 'BEGIN { print 0.7 * g }')" "$work/noise.wav" \
      -b 16 "$DIR/snr$snr/$file"
    printf '%s\t%s\t%s\t%s\n' "$file" "$kind" "$text" "$options" >>"$DIR/snr$snr/manifest.tsv"
  done <"$DIR/natural/manifest.tsv"
done

# Babble: two sentences at once at -6 dB, with silence around, while a
# question with PROJECTS waits.
for b in $(seq 1 "${#BABBLE[@]}"); do
  to16k "$work/babble-$b-a.wav" "$work/a.wav"
  to16k "$work/babble-$b-b.wav" "$work/b.wav"
  sox -m "$work/a.wav" "$work/b.wav" "$work/bed-$b.wav"
  sox "$work/bed-$b.wav" "$work/mixed.wav" gain -6 pad 0.3 0.7
  sox "$work/mixed.wav" -b 16 "$DIR/babble/babble-$b.wav"
  pair=${BABBLE[$((b - 1))]}
  printf '%s\tbabble\t%s\t%s\n' "babble-$b.wav" "${pair/|/ }" "$PROJECTS" >>"$DIR/babble/manifest.tsv"
done

# Babble under the speaker: each natural utterance with one of the babble
# pairs looped under it, scaled to 6 dB below the speech's RMS.
i=0
while IFS=$'\t' read -r file kind text options; do
  i=$((i + 1))
  b=$(((i % ${#BABBLE[@]}) + 1))
  speech="$DIR/natural/$file"
  sox "$work/bed-$b.wav" "$work/bed.wav" repeat 9 trim 0 "$(soxi -D "$speech")"
  gain=$(awk -v s="$(rms "$speech")" -v n="$(rms "$work/bed.wav")" \
    'BEGIN { printf "%.6f", (s / n) / (10 ^ (6 / 20)) }')
  sox -m -v 0.7 "$speech" -v "$(awk -v g="$gain" 'BEGIN { print 0.7 * g }')" "$work/bed.wav" \
    -b 16 "$DIR/babble-under/$file"
  printf '%s\t%s\t%s\t%s\n' "$file" "$kind" "$text" "$options" >>"$DIR/babble-under/manifest.tsv"
done <"$DIR/natural/manifest.tsv"

printf '%s\n' "$stamp" >"$DIR/.stamp"
echo "speech samples in $DIR: $(cat "$DIR"/*/manifest.tsv | wc -l) utterances in 6 sets" >&2
