// @speech: Chromium's fake microphone says a request; the real server and
// its recogniser hear it and start a voice turn with its words. Fails (never
// skips) if the server cannot listen.
import { test, expect } from './fixtures';
import { spokenWav, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('remind me to call Anna')) });

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
    await expect(page.getByTestId('echo-heard').first()).toHaveText(/remind me to call an+a/i, { timeout: 30_000 });
    await expect(page.getByTestId('echo-reply').first()).toContainText(/remind me to call an+a/i);
  });
});
