// @speech: a spoken "stop" stops the reply being written (real server and
// recogniser; fails if it cannot listen).
import { test, expect, uniqueTrigger } from './fixtures';
import { spokenWav, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('stop')) });

test.describe('Echo hears "stop"', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should stop the reply when it hears "stop"', async ({ page, standin }) => {
    const trigger = uniqueTrigger('speech-stop');
    await standin!.script({ trigger, turns: [{ chunks: ['A very long answer'], stall: true }] });
    const ready = watchRecogniser(page);
    await page.goto('/voice');
    await page.getByTestId('echo-input').fill(`tell me ${trigger}`);
    await page.getByTestId('echo-input').press('Enter');
    await expect(page.getByTestId('echo-reply')).toHaveText('A very long answer');
    await expect(page.getByTestId('echo-stop')).toBeVisible();
    await page.getByTestId('mic').click();
    await ready();
    await expect(page.getByTestId('echo-stop')).toBeHidden({ timeout: 30_000 });
  });
});
