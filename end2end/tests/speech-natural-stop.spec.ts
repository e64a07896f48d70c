// @speech: "Stop." in Piper's natural voice stops the reply being written
// (real server and recogniser; fails if it cannot listen or Piper is not
// set up).
import { test, expect, uniqueTrigger } from './fixtures';
import { naturalWav, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(naturalWav(['Stop.'], { kind: 'quiet' })) });

test.describe('Echo hears a natural "stop"', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should stop the reply when a natural voice says "stop"', async ({ page, standin }) => {
    const trigger = uniqueTrigger('natural-stop');
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
