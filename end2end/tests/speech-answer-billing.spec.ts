// @speech: a spoken "Billing" answers a waiting question with the options
// Imprint and Billing (real server and recogniser; fails if it cannot listen).
import { test, expect, uniqueTrigger } from './fixtures';
import { askScenario } from './fixtures/ask';
import { spokenWav, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('Billing')) });

test.describe('Echo hears a spoken answer', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should take a spoken option as the answer to the waiting question', async ({ page, standin }) => {
    const trigger = uniqueTrigger('speech-option');
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
    await expect(page.getByTestId('echo-turn')).toHaveCount(1);
  });
});
