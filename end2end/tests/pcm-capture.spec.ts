// The microphone worklet's resampler (public/pcm-capture.js), run in Node
// with a stand-in for the AudioWorklet globals: speech-band tones keep their
// pitch and level at 16 kHz, and tones above 8 kHz are filtered out instead
// of folding back into the speech band. No browser or server needed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { test, expect } from '@playwright/test';

const SOURCE = fs.readFileSync(
  path.join(fileURLToPath(new URL('../../public/pcm-capture.js', import.meta.url))),
  'utf8',
);
const FRAME = 1280;

/** Runs `seconds` of a sine at `hz` through the processor at `inputRate`; returns the 16 kHz output. */
function resample(inputRate: number, hz: number, seconds: number): { samples: Int16Array; frames: ArrayBuffer[] } {
  const frames: ArrayBuffer[] = [];
  let Processor: new (options: unknown) => { process(inputs: Float32Array[][]): boolean; port: { onmessage: unknown } } =
    undefined as never;
  class AudioWorkletProcessor {
    port = { postMessage: (m: { pcm: ArrayBuffer }) => frames.push(m.pcm), onmessage: null };
  }
  vm.runInNewContext(SOURCE, {
    AudioWorkletProcessor,
    sampleRate: inputRate,
    registerProcessor: (_name: string, c: typeof Processor) => (Processor = c),
    Math,
    Float32Array,
    Int16Array,
    ArrayBuffer,
    DataView,
  });
  const processor = new Processor({ processorOptions: { frameSamples: FRAME } });
  const total = Math.round(inputRate * seconds);
  for (let at = 0; at < total; at += 128) {
    const block = new Float32Array(128);
    for (let i = 0; i < 128; i++) block[i] = 0.5 * Math.sin((2 * Math.PI * hz * (at + i)) / inputRate);
    processor.process([[block]]);
  }
  const bytes = Buffer.concat(frames.map((f) => Buffer.from(f)));
  const samples = new Int16Array(bytes.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
  return { samples, frames };
}

/** RMS of the steady part (after the filter settles), full scale 1. */
function rms(samples: Int16Array): number {
  const steady = samples.subarray(200);
  let sum = 0;
  for (const s of steady) sum += (s / 32768) ** 2;
  return Math.sqrt(sum / steady.length);
}

/** The tone's frequency from its rising zero crossings. */
function pitch(samples: Int16Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 201; i < samples.length; i++) if (samples[i - 1] < 0 && samples[i] >= 0) crossings.push(i);
  return ((crossings.length - 1) * rate) / (crossings.at(-1)! - crossings[0]);
}

for (const inputRate of [48000, 44100, 16000]) {
  test.describe(`pcm-capture at ${inputRate} Hz`, () => {
    test('should post 16 kHz frames of whole samples, as many as the input lasts', () => {
      const { samples, frames } = resample(inputRate, 440, 1);
      expect(Math.abs(samples.length - 16000)).toBeLessThanOrEqual(FRAME);
      for (const frame of frames) expect(frame.byteLength).toBe(FRAME * 2);
    });

    test('should keep a speech-band tone at its pitch and level', () => {
      const { samples } = resample(inputRate, 1000, 1);
      expect(pitch(samples, 16000)).toBeCloseTo(1000, -1);
      // A 0.5 sine has an RMS of 0.354.
      expect(rms(samples)).toBeGreaterThan(0.33);
      expect(rms(samples)).toBeLessThan(0.37);
    });

    if (inputRate > 16000) {
      test('should filter out a tone above 8 kHz rather than fold it into the speech band', () => {
        // 12 kHz would alias to 4 kHz without the low-pass.
        const { samples } = resample(inputRate, 12000, 1);
        const db = 20 * Math.log10(rms(samples) / 0.354);
        expect(db).toBeLessThan(-40);
      });
    }
  });
}
