// Echo's microphone capture (an AudioWorklet processor; Imprint's
// app/src/io/microphone.rs loads it). It turns the context's audio, at
// whatever rate the device runs (44.1 or 48 kHz usually), into 16 kHz mono
// signed 16-bit little-endian PCM, and posts one frame every `frameSamples`
// output samples with the frame's RMS (for the level meter) to the page.
//
// Resampling is done here rather than by asking for
// `new AudioContext({sampleRate: 16000})`. Measured in headless Chromium
// 156: its default context runs at 44.1 kHz, and a 16 kHz context is
// honoured and takes the microphone. Firefox could not be checked here and
// has been known to refuse connecting a microphone to a context whose rate
// is not the device's; resampling here works in every browser. A
// windowed-sinc low-pass (cut at 7.2 kHz, below the new Nyquist of 8 kHz)
// runs at the input rate, then the filtered signal is sampled at each
// output instant by linear interpolation (the ratio need not be whole:
// 44.1 kHz to 16 kHz is 2.75625). end2end/tests/echo-microphone.spec.ts
// checks the result: the speech in the frames lasts as long as in the file.

const OUTPUT_RATE = 16000;
const CUTOFF_HZ = 7200;
const TAPS = 63; // odd: a symmetric filter with a centre tap

function lowPass(inputRate) {
  const fc = CUTOFF_HZ / inputRate; // cycles per input sample
  const middle = (TAPS - 1) / 2;
  const taps = new Float32Array(TAPS);
  let sum = 0;
  for (let i = 0; i < TAPS; i++) {
    const n = i - middle;
    const sinc = n === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * n) / (Math.PI * n);
    // Blackman window: about 74 dB of stop-band attenuation.
    const w = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (TAPS - 1));
    taps[i] = sinc * w;
    sum += taps[i];
  }
  for (let i = 0; i < TAPS; i++) taps[i] /= sum; // unity gain at 0 Hz
  return taps;
}

class PcmCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const frameSamples = options?.processorOptions?.frameSamples ?? 1280;
    this.step = sampleRate / OUTPUT_RATE; // input samples per output sample
    this.passThrough = sampleRate === OUTPUT_RATE;
    this.taps = this.passThrough ? null : lowPass(sampleRate);
    // The last TAPS input samples, twice over so a window is one slice.
    this.history = new Float32Array(TAPS * 2);
    this.at = 0;
    this.previous = 0; // the filtered sample before the current one
    this.current = 0;
    this.position = 0; // the next output instant, in input samples from `current`
    this.frame = new Int16Array(frameSamples);
    this.filled = 0;
    this.squares = 0;
    this.port.onmessage = (event) => {
      if (event.data === 'flush') this.flush();
    };
  }

  filter(sample) {
    const h = this.history;
    h[this.at] = sample;
    h[this.at + TAPS] = sample;
    this.at = (this.at + 1) % TAPS;
    let acc = 0;
    const taps = this.taps;
    // h[at .. at + TAPS] holds the samples oldest first.
    for (let i = 0, j = this.at; i < TAPS; i++, j++) acc += taps[i] * h[j];
    return acc;
  }

  emit(value) {
    const clamped = Math.max(-1, Math.min(1, value));
    this.frame[this.filled++] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff;
    this.squares += clamped * clamped;
    if (this.filled === this.frame.length) this.flush();
  }

  flush() {
    if (this.filled === 0) return;
    const samples = this.frame.slice(0, this.filled);
    // Int16Array is in the platform's byte order: write little-endian
    // explicitly, whatever the machine.
    const bytes = new ArrayBuffer(samples.length * 2);
    const view = new DataView(bytes);
    for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i], true);
    const rms = Math.sqrt(this.squares / this.filled);
    this.filled = 0;
    this.squares = 0;
    this.port.postMessage({ pcm: bytes, rms }, [bytes]);
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0) return true;
    const channels = input.length;
    const length = input[0].length;
    for (let i = 0; i < length; i++) {
      let mono = 0;
      for (let c = 0; c < channels; c++) mono += input[c][i];
      mono /= channels;
      if (this.passThrough) {
        this.emit(mono);
        continue;
      }
      this.previous = this.current;
      this.current = this.filter(mono);
      // Output instants between the previous and the current sample.
      this.position -= 1;
      while (this.position <= 0) {
        const t = this.position + 1; // 0..1 from `previous` to `current`
        this.emit(this.previous + (this.current - this.previous) * t);
        this.position += this.step;
      }
    }
    return true;
  }
}

registerProcessor('pcm-capture', PcmCapture);
