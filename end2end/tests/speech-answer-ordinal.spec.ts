// @speech: a spoken "the second one" answers a waiting question with the
// second option (real server and recogniser; fails if it cannot listen).
import { test, expect, uniqueTrigger } from './fixtures';
import { askScenario } from './fixtures/ask';
import { spokenWav, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('the second one')) });

test.describe('Echo hears a spoken ordinal', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should take "the second one" as the second option', async ({ page, standin }) => {
    const trigger = uniqueTrigger('speech-ordinal');
    await standin!.script(askScenario(trigger));
    const ready = watchRecogniser(page);
    await page.goto('/voice');
    await page.getByTestId('echo-input').fill(`find notes ${trigger}`);
    await page.getByTestId('echo-input').press('Enter');
    const card = page.getByTestId('question-card');
    await expect(card).toHaveAttribute('data-state', 'waiting');
    await page.getByTestId('mic').click();
    await ready();
    await expect(card).toContainText('Answered: Billing', { timeout: 30_000 });
  });
});
