// @speech: a short spoken answer that names none of the options (Piper's
// natural voice says "Garden.", the options are Imprint and Billing) is
// confirmed before it is used: "Did you say …?" (with what was heard)
// waits for a yes, and only then answers the question (real server and recogniser; fails if it
// cannot listen or Piper is not set up).
import { test, expect, uniqueTrigger } from './fixtures';
import { answerBySpeech, naturalWav } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(naturalWav(['Garden.'], { kind: 'quiet' })) });

test.describe('Echo confirms an answer it is not sure of', { tag: '@speech' }, () => {
  test.describe.configure({ timeout: 90_000 });
  test('should ask "Did you say …?" before using a spoken answer that names no option', async ({
    page,
    standin,
  }) => {
    const card = await answerBySpeech(page, standin!, uniqueTrigger('speech-confirm'));
    const confirm = page.getByTestId('echo-confirm');
    // What the recogniser made of it is asked back as heard (the tiny
    // model has heard "Cardin"), which is why it is asked.
    await expect(confirm).toContainText(/Did you say .+\?/, { timeout: 30_000 });
    const heard = /Did you say (.+?)\?/.exec((await confirm.textContent()) ?? '')![1];
    expect(heard).not.toMatch(/^(Imprint|Billing)$/);
    // Not used yet: the question still waits for the yes.
    await expect(card).toHaveAttribute('data-state', 'waiting');
    await confirm.getByRole('button', { name: 'Yes' }).click();
    await expect(card).toContainText(`Answered: ${heard}`);
  });
});
