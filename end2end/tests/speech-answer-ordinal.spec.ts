// @speech: a spoken "the second one" answers a waiting question with the
// second option (real server and recogniser; fails if it cannot listen).
import { test, expect, uniqueTrigger } from './fixtures';
import { answerBySpeech, spokenWav } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('the second one')) });

test.describe('Echo hears a spoken ordinal', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should take "the second one" as the second option', async ({ page, standin }) => {
    const card = await answerBySpeech(page, standin!, uniqueTrigger('speech-ordinal'));
    await expect(card).toContainText('Answered: Billing', { timeout: 30_000 });
  });
});
