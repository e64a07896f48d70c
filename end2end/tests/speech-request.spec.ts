// @speech: Chromium's fake microphone says a request; the real server and
// its recogniser hear it and start a voice turn with its words. Fails (never
// skips) if the server cannot listen.
import { test, expect } from './fixtures';
import { spokenWav, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('remind me to call Anna tomorrow')) });

test.describe('Echo hears a spoken request', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should start a voice turn with the spoken words', async ({ page }) => {
    const ready = watchRecogniser(page);
    await page.goto('/voice');
    await expect(page.getByTestId('echo-recogniser')).toHaveValue('imprint');
    // The file plays once, from the moment recording starts.
    await page.getByTestId('mic').click();
    await ready();
    // tiny.en hears espeak-ng's "Anna" as "Anna", "out" or "and" from run
    // to run (its accuracy is measured by `eval_speech`, not here): this
    // checks the path, that the words heard start the turn.
    const heard = page.getByTestId('echo-heard').first();
    await expect(heard).toHaveText(/^remind me to call \w+ tomorrow\.?$/i, { timeout: 30_000 });
    const words = (await heard.textContent())!.replace(/\.$/, '');
    await expect(page.getByTestId('echo-reply').first()).toContainText(words);
  });
});
