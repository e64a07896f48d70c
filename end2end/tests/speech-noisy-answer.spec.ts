// @speech: "Billing" in Piper's natural voice under brown noise at 10 dB
// SNR answers a waiting question with the options Imprint and Billing
// (real server and recogniser; fails if it cannot listen or Piper is not
// set up).
import { test, expect, uniqueTrigger } from './fixtures';
import { answerBySpeech, naturalWav } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(naturalWav(['Billing.'], { kind: 'noise', snrDb: 10 })) });

test.describe('Echo hears an answer in a noisy room', { tag: '@speech' }, () => {
  test.describe.configure({ timeout: 90_000 });
  test('should take a noisy spoken option as the answer', async ({ page, standin }) => {
    const card = await answerBySpeech(page, standin!, uniqueTrigger('speech-noisy'));
    await expect(card).toContainText('Answered: Billing', { timeout: 30_000 });
  });
});
