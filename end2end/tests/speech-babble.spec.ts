// @speech: two other people talking at once (Piper's natural voice, no
// answer in it) while a question waits: nothing is taken, the question
// keeps waiting (real server and recogniser; fails if it cannot listen or
// Piper is not set up).
import { test, expect, uniqueTrigger } from './fixtures';
import { answerBySpeech, naturalWav } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({
  launchOptions: withFakeMicrophone(
    naturalWav(['Did you see the match last night?', 'I think it will rain later.'], { kind: 'babble' }),
  ),
});

test.describe('Echo ignores background talk', { tag: '@speech' }, () => {
  test.describe.configure({ timeout: 90_000 });
  test('should leave the question waiting when only babble is heard', async ({ page, standin }) => {
    const card = await answerBySpeech(page, standin!, uniqueTrigger('speech-babble'));
    // The babble was heard and let go (as noise or as no answer) …
    await expect(page.getByTestId('echo-notice')).toContainText(/sounded like noise|did not sound like an answer/, {
      timeout: 30_000,
    });
    // … and the question still waits, with nothing to confirm.
    await expect(card).toHaveAttribute('data-state', 'waiting');
    await expect(page.getByTestId('echo-confirm')).toHaveCount(0);
  });
});
