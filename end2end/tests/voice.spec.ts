import { test, expect, uniqueTrigger, type Scenario } from './fixtures';
import { hear, installSpeechFakes, untilSpoken } from './fixtures/speech';

function askScenario(trigger: string): Scenario {
  return {
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question: 'Which project?', options: ['Imprint', 'Billing'] } }] },
      { chunks: ['Here are the notes.'] },
    ],
  };
}

test.describe('Echo', () => {
  test.beforeEach(async ({ page }) => {
    await installSpeechFakes(page);
  });

  test('should speak the question with its choices and take a tapped choice', async ({ page, standin }) => {
    const trigger = uniqueTrigger('tap');
    await standin!.script(askScenario(trigger));
    await page.goto('/voice');
    await page.getByTestId('echo-input').fill(`find notes ${trigger}`);
    await page.getByTestId('echo-input').press('Enter');
    const card = page.getByTestId('question-card');
    await expect(card).toHaveAttribute('data-state', 'waiting');
    await untilSpoken(page, 'Which project? You can say Imprint or Billing, or something else.');

    await card.getByRole('button', { name: 'Billing', exact: true }).click();
    await expect(card).toContainText('Answered: Billing');
    await expect(page.getByTestId('echo-reply').last()).toHaveText('Here are the notes.');
    await untilSpoken(page, 'Here are the notes.');
  });

  test('should take typed text as the answer, shown on the card and not as a turn', async ({ page, standin }) => {
    const trigger = uniqueTrigger('typed');
    await standin!.script(askScenario(trigger));
    await page.goto('/voice');
    const input = page.getByTestId('echo-input');
    await input.fill(trigger);
    await input.press('Enter');
    await expect(page.getByTestId('question-card')).toHaveAttribute('data-state', 'waiting');
    await expect(input).toHaveAttribute('placeholder', 'Answer the question…');
    await input.fill('the garden one');
    await input.press('Enter');
    await expect(page.getByTestId('question-card')).toContainText('Answered: the garden one');
    await expect(page.getByTestId('echo-turn')).toHaveCount(1);
  });

  test('should take a recognized utterance as the answer and ignore its own voice', async ({ page, standin }) => {
    const trigger = uniqueTrigger('spoken');
    await standin!.script(askScenario(trigger));
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'true');
    await hear(page, `find notes ${trigger}`);
    const card = page.getByTestId('question-card');
    await expect(card).toHaveAttribute('data-state', 'waiting');

    // Echo hears itself reading the choices: ignored, still waiting.
    await hear(page, 'you can say Imprint or Billing');
    await expect(page.getByTestId('echo-notice')).toContainText('Echo’s own voice');
    await expect(card).toHaveAttribute('data-state', 'waiting');

    await hear(page, 'Imprint please');
    await expect(card).toContainText('Answered: Imprint');
    await expect(page.getByTestId('echo-turn')).toHaveCount(1);
  });

  test('should confirm an unsure answer before using it', async ({ page, standin }) => {
    const trigger = uniqueTrigger('unsure');
    await standin!.script(askScenario(trigger));
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    await hear(page, `find notes ${trigger}`);
    const card = page.getByTestId('question-card');
    await expect(card).toHaveAttribute('data-state', 'waiting');

    // Heard unsure: asked about, not used; a No drops it and the question waits.
    await hear(page, 'Billing', 0.4);
    const confirm = page.getByTestId('echo-confirm');
    await expect(confirm).toContainText('Did you say Billing?');
    await confirm.getByRole('button', { name: 'No' }).click();
    await expect(confirm).toBeHidden();
    await expect(card).toHaveAttribute('data-state', 'waiting');

    // Background talk is not an answer.
    await hear(page, 'Have you seen the man last night?', 0.8);
    await expect(page.getByTestId('echo-notice')).toContainText('did not sound like an answer');
    await expect(card).toHaveAttribute('data-state', 'waiting');

    await hear(page, 'Imprint', 0.4);
    await expect(confirm).toContainText('Did you say Imprint?');
    await confirm.getByRole('button', { name: 'Yes' }).click();
    await expect(card).toContainText('Answered: Imprint');
  });

  test('should stop the reply when it hears "stop"', async ({ page, standin }) => {
    const trigger = uniqueTrigger('stop');
    await standin!.script({ trigger, turns: [{ chunks: ['A very long answer'], stall: true }] });
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    await hear(page, `tell me ${trigger}`);
    await expect(page.getByTestId('echo-reply')).toHaveText('A very long answer');
    await expect(page.getByTestId('echo-stop')).toBeVisible();
    await hear(page, 'stop');
    await expect(page.getByTestId('echo-stop')).toBeHidden();
  });

  test('should open from the companion on the Chat page and work there', async ({ page, standin }) => {
    const trigger = uniqueTrigger('companion');
    await standin!.script(askScenario(trigger));
    await page.goto('/chat');
    await page.getByTestId('echo-companion').click();
    const panel = page.getByTestId('companion-panel');
    await expect(panel).toBeVisible();
    await panel.getByTestId('echo-input').fill(trigger);
    await panel.getByTestId('echo-input').press('Enter');
    await panel.getByRole('button', { name: 'Imprint', exact: true }).click();
    await expect(panel.getByTestId('echo-reply')).toHaveText('Here are the notes.');
  });
});

test.describe('Echo without Web Speech', () => {
  test('should not offer the browser recogniser and still take typing', async ({ page }) => {
    await page.addInitScript(() => {
      for (const name of ['SpeechRecognition', 'webkitSpeechRecognition']) {
        Object.defineProperty(window, name, { value: undefined, configurable: true });
      }
    });
    await page.goto('/voice');
    await expect(page.getByTestId('echo-recogniser')).toHaveValue('imprint');
    await expect(page.getByTestId('echo-recogniser').locator('option[value=browser]')).toHaveCount(0);
    await page.getByTestId('echo-input').fill('hello there');
    await page.getByTestId('echo-input').press('Enter');
    await expect(page.getByTestId('echo-reply')).toHaveText('You said: hello there');
  });

  test('should say the browser cannot listen when it can neither record nor recognise', async ({ page }) => {
    await page.addInitScript(() => {
      for (const name of ['SpeechRecognition', 'webkitSpeechRecognition']) {
        Object.defineProperty(window, name, { value: undefined, configurable: true });
      }
      Object.defineProperty(navigator, 'mediaDevices', { value: undefined, configurable: true });
    });
    await page.goto('/voice');
    await expect(page.getByTestId('no-speech')).toBeVisible();
    await expect(page.getByTestId('mic')).toBeDisabled();
  });
});
