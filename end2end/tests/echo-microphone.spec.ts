// Echo's microphone with Imprint's recogniser, client side: Chromium's fake
// microphone plays a spoken WAV, and the test plays the server's part of the
// voice socket (fixtures/voice-server.ts). The same with the real server
// and recogniser is in the `@speech` specs (speech-*.spec.ts).
import AxeBuilder from '@axe-core/playwright';
import { test, expect } from './fixtures';
import { s16le, speechSpan, spokenWav, wavSamples } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';
import { FakeVoiceServer } from './fixtures/voice-server';

const wav = spokenWav('remind me to call Anna');
test.use({ launchOptions: withFakeMicrophone(wav) });

const MAX_AUDIO_FRAME_BYTES = 8192;
const BYTES_PER_SECOND = 16000 * 2;

test.describe('Echo microphone (Imprint recogniser, fake server)', () => {
  test('should stream the microphone as 16 kHz s16le frames after audio_start, and move the meter', async ({ page }) => {
    const server = await FakeVoiceServer.install(page, { audio: { ready: 'fake-recogniser' } });
    await page.goto('/voice');
    await expect(page.getByTestId('echo-recogniser')).toHaveValue('imprint');
    const mic = page.getByRole('button', { name: 'Talk' });
    await mic.click();
    await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('echo-status')).toHaveText('Listening');

    const start = await server.message('audio_start');
    expect(start).toEqual({ type: 'audio_start', format: 's16le', sample_rate: 16000 });
    await expect(page.getByRole('meter', { name: 'Microphone level' })).not.toHaveAttribute('value', '0.00');

    // The whole file (and then some silence) has been sent.
    const { rate, samples: played } = wavSamples(wav);
    const seconds = played.length / rate;
    await server.audio(Math.ceil((seconds + 0.5) * BYTES_PER_SECOND));
    await page.getByTestId('mic').click();
    await server.message('audio_end');
    await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByTestId('echo-status')).toHaveText('Microphone off');

    // No frame came before audio_start, none after audio_end.
    const types = server.messages.map((m) => m.type);
    expect(types.indexOf('audio_start')).toBeLessThan(types.indexOf('audio_end'));
    for (const frame of server.frames) {
      expect(frame.length % 2, 'whole 16-bit samples').toBe(0);
      expect(frame.length).toBeGreaterThan(0);
      expect(frame.length).toBeLessThanOrEqual(MAX_AUDIO_FRAME_BYTES);
    }
    // At 16 kHz, the speech in the frames lasts as long as in the file:
    // a wrong rate (or byte order) would stretch, squeeze or garble it.
    const sent = speechSpan(s16le(Buffer.concat(server.frames)), 16000);
    const expected = speechSpan(played, rate);
    expect(sent, 'speech in the frames').not.toBeNull();
    const sentLength = sent!.end - sent!.start;
    const expectedLength = expected!.end - expected!.start;
    expect(Math.abs(sentLength - expectedLength), `speech of ${sentLength.toFixed(2)} s sent, ${expectedLength.toFixed(2)} s in the file`).toBeLessThan(
      0.15 * expectedLength + 0.1,
    );
  });

  test('should show hearing, the interim words, thinking and what was heard', async ({ page }) => {
    const server = await FakeVoiceServer.install(page, { audio: { ready: 'fake-recogniser' } });
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    await server.message('audio_start');
    const status = page.getByTestId('echo-status');
    await expect(status).toHaveText('Listening');
    await expect(status).toHaveAttribute('aria-live', 'polite');

    server.send({ type: 'hearing' });
    await expect(status).toHaveText('Hearing you…');
    await expect(status).toHaveAttribute('data-state', 'hearing');
    server.send({ type: 'interim', text: 'remind me to' });
    await expect(page.getByTestId('echo-interim')).toHaveText('remind me to');
    server.send({ type: 'interim', text: 'remind me to call' });
    await expect(page.getByTestId('echo-interim')).toHaveText('remind me to call');
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

    server.send({ type: 'thinking' });
    await expect(status).toHaveText('Writing it down…');
    await expect(page.getByTestId('echo-interim')).toBeHidden();
    server.send({ type: 'heard', text: 'remind me to call Anna', confidence: 0.9 });
    await expect(status).toHaveText('Listening');
    await expect(page.getByTestId('transcript')).toHaveText('remind me to call Anna');
    server.send({ type: 'turn_started', turn_id: 't1', text: 'remind me to call Anna' });
    await expect(page.getByTestId('echo-heard')).toHaveText('remind me to call Anna');

    server.send({ type: 'hearing' });
    server.send({ type: 'ignored', text: '', reason: 'audio_too_long' });
    await expect(page.getByTestId('echo-notice')).toContainText('too long');
    await expect(status).toHaveText('Listening');
  });

  test('should say so plainly when Imprint cannot listen, and fall back to typing or Web Speech', async ({ page }) => {
    const server = await FakeVoiceServer.install(page, { audio: { unavailable: 'no speech model is set up' } });
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    const unavailable = page.getByTestId('echo-unavailable');
    await expect(unavailable).toContainText('Imprint cannot listen here: no speech model is set up.');
    await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByTestId('echo-meter')).toBeHidden();

    // Typing still goes to Echo.
    await page.getByTestId('echo-input').fill('hello by hand');
    await page.getByTestId('echo-input').press('Enter');
    expect(await server.message('typed')).toEqual({ type: 'typed', text: 'hello by hand' });

    // Chromium has webkitSpeechRecognition: it is offered.
    await page.getByTestId('use-web-speech').click();
    await expect(page.getByTestId('echo-recogniser')).toHaveValue('browser');
    await expect(page.getByTestId('web-speech-note')).toContainText('browser’s maker');
    await expect(unavailable).toBeHidden();
  });

  test('should remember the chosen recogniser across a reload', async ({ page }) => {
    await FakeVoiceServer.install(page, { audio: { ready: 'fake-recogniser' } });
    await page.goto('/voice');
    const setting = page.getByLabel('Speech recognition');
    await expect(setting).toHaveValue('imprint');
    await expect(page.getByTestId('web-speech-note')).toBeHidden();
    await setting.selectOption('browser');
    await expect(page.getByTestId('web-speech-note')).toBeVisible();
    await page.reload();
    await expect(page.getByLabel('Speech recognition')).toHaveValue('browser');
    await page.getByLabel('Speech recognition').selectOption('imprint');
    await page.reload();
    await expect(page.getByLabel('Speech recognition')).toHaveValue('imprint');
  });

  test('should tell the server what Echo speaks and when it stopped, even when speech fails at once, and keep streaming', async ({
    page,
  }) => {
    const server = await FakeVoiceServer.install(page, { audio: { ready: 'fake-recogniser' } });
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    await server.message('audio_start');
    await server.audio(1);
    // Headless Chromium's speechSynthesis fails at once (synthesis-failed).
    server.send({ type: 'turn_started', turn_id: 't1', text: 'hi' });
    server.send({ type: 'assistant_message', turn_id: 't1', text: 'Hello there.' });
    expect(await server.message('speaking')).toEqual({ type: 'speaking', text: 'Hello there.' });
    expect(await server.message('spoke')).toEqual({ type: 'spoke', text: 'Hello there.' });
    await expect(page.getByTestId('echo-status')).toHaveText('Listening');
    // The microphone kept streaming through it.
    const before = server.audioBytes();
    await server.audio(before + 2 * 2560);
    expect(server.messages.map((m) => m.type)).not.toContain('audio_end');
  });

  test('should show the states in the companion too, with the microphone toggled from the keyboard', async ({ page }) => {
    const server = await FakeVoiceServer.install(page, { audio: { ready: 'fake-recogniser' } });
    await page.goto('/chat');
    await page.getByTestId('echo-companion').click();
    const panel = page.getByTestId('companion-panel');
    const mic = panel.getByTestId('mic');
    await mic.focus();
    await page.keyboard.press('Space');
    await expect(mic).toHaveAttribute('aria-pressed', 'true');
    await server.message('audio_start');
    await expect(panel.getByRole('meter', { name: 'Microphone level' })).toBeVisible();
    server.send({ type: 'hearing' });
    server.send({ type: 'interim', text: 'what is on' });
    await expect(panel.getByTestId('echo-status')).toHaveText('Hearing you…');
    await expect(panel.getByTestId('echo-interim')).toHaveText('what is on');
    await page.keyboard.press('Enter');
    await expect(mic).toHaveAttribute('aria-pressed', 'false');
    await server.message('audio_end');
    await expect(panel.getByTestId('echo-status')).toHaveText('Microphone off');
  });

  test('should offer only Imprint where the browser has no Web Speech', async ({ page }) => {
    await page.addInitScript(() => {
      for (const name of ['SpeechRecognition', 'webkitSpeechRecognition']) {
        Object.defineProperty(window, name, { value: undefined, configurable: true });
      }
    });
    await FakeVoiceServer.install(page, { audio: { ready: 'fake-recogniser' } });
    await page.goto('/voice');
    await expect(page.getByLabel('Speech recognition').locator('option')).toHaveText(['Imprint (on this machine)']);
    await expect(page.getByTestId('mic')).toBeEnabled();
  });
});
