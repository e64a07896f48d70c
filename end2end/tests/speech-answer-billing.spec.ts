// @speech: a spoken "Billing" answers a waiting question with the options
// Imprint and Billing (real server and recogniser; fails if it cannot listen).
import { test, expect, uniqueTrigger } from './fixtures';
import { answerBySpeech, spokenWav } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('Billing')) });

test.describe('Echo hears a spoken answer', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should take a spoken option as the answer to the waiting question', async ({ page, standin }) => {
    const card = await answerBySpeech(page, standin!, uniqueTrigger('speech-option'));
    await expect(card).toContainText('Answered: Billing', { timeout: 30_000 });
    await expect(page.getByTestId('echo-turn')).toHaveCount(1);
  });
});
