// Accessibility: axe-core's WCAG 2.1 A and AA rules on every page and state a
// user meets (a waiting question and its answer, a finished reply, the
// "Waiting for you" panel, Voice, Memories and Reminders, the Model page, the
// Echo companion), in both themes, at a phone's and a desktop's width. Serious
// and critical violations fail the test; moderate and minor ones are printed.
import AxeBuilder from '@axe-core/playwright';
import { test, expect, uniqueTrigger, InboxPanel, clearWaiting, type Page, type Scenario } from './fixtures';
import { installSpeechFakes } from './fixtures/speech';

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

function askScenario(trigger: string): Scenario {
  return {
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question: 'Which project?', options: ['Imprint', 'Billing'] } }] },
      { chunks: ['Here are the notes.'] },
    ],
  };
}

/** Runs axe on the page as it is now; fails on serious or critical violations. */
async function checkPage(page: Page, state: string) {
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  const severe = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of results.violations.filter((v) => !severe.includes(v))) {
    console.log(`a11y ${v.impact} (${state}): ${v.id}: ${v.help} on ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
  const described = severe.map(
    (v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${n.failureSummary}`).join('\n')}`,
  );
  expect(described, `axe violations in ${state}`).toEqual([]);
}

const themes = ['light', 'dark'] as const;
const widths = [
  { name: 'phone', width: 375, height: 740 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

for (const theme of themes) {
  for (const size of widths) {
    test.describe(`accessibility, ${theme} theme, ${size.width} px`, () => {
      test.use({ colorScheme: theme, viewport: { width: size.width, height: size.height } });
      // Each test runs axe on several states (a few seconds each on 2 cores).
      test.describe.configure({ timeout: 120_000 });

      test('should pass axe on Chat with a waiting question and after it is answered', async ({ chat, standin, page }) => {
        const trigger = uniqueTrigger('a11y-card');
        await standin!.script(askScenario(trigger));
        await chat.startNewChat();
        await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
        await checkPage(page, 'empty chat');
        await chat.say(`find my notes ${trigger}`);
        await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
        await checkPage(page, 'waiting question');
        await chat.option('Billing').click();
        await expect(chat.questionCard).toHaveAttribute('data-state', 'answered');
        await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
        await checkPage(page, 'answered question');
      });

      test('should pass axe on a reply with activity lines, Markdown and a marked ending', async ({ chat, standin, page }) => {
        const trigger = uniqueTrigger('a11y-reply');
        await standin!.script({
          trigger,
          turns: [
            { calls: [{ name: 'search', arguments: { query: 'garden plans' } }] },
            {
              chunks: ['## Garden plans\n\nI found **nothing** yet:\n\n- the `north` bed\n- the south bed\n\n> a quote'],
              finish_reason: 'length',
            },
          ],
        });
        await chat.startNewChat();
        await chat.say(`garden plans ${trigger}`);
        await expect(page.getByTestId('reply-ended')).toHaveAttribute('data-ended', 'length');
        await expect(page.getByTestId('tool-activity').first()).toBeVisible();
        await checkPage(page, 'finished reply');
      });

      test('should pass axe on the Waiting for you panel', async ({ chat, standin, page, request }) => {
        await clearWaiting(request);
        const trigger = uniqueTrigger('a11y-inbox');
        await standin!.script(askScenario(trigger));
        await chat.startNewChat();
        await chat.say(trigger);
        await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
        const inbox = new InboxPanel(page);
        await inbox.open();
        await expect(inbox.entries).toHaveCount(1);
        await checkPage(page, 'inbox panel');
      });

      test('should pass axe on the Voice page, idle, listening and with a question', async ({ page, standin }) => {
        await installSpeechFakes(page);
        const trigger = uniqueTrigger('a11y-voice');
        await standin!.script(askScenario(trigger));
        await page.goto('/voice');
        await expect(page.getByTestId('voice-page')).toBeVisible();
        await checkPage(page, 'voice idle');
        await page.getByTestId('mic').click();
        await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'true');
        await checkPage(page, 'voice listening');
        await page.getByTestId('mic').click();
        await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'false');
        await page.getByTestId('echo-input').fill(`find notes ${trigger}`);
        await page.getByTestId('echo-input').press('Enter');
        await expect(page.getByTestId('question-card')).toHaveAttribute('data-state', 'waiting');
        await checkPage(page, 'voice question');
      });

      test('should pass axe on Memories and Reminders, listed, edited and imported', async ({ page, request }) => {
        const text = uniqueTrigger('a11y memory');
        expect((await request.post('/api/memories', { data: { content: text, project: 'Garden', tags: ['beds'] } })).status()).toBe(201);
        expect((await request.post('/api/reminders', { data: { text, at: 'in 3 hours' } })).status()).toBe(201);
        await page.goto('/memories');
        await expect(page.getByTestId('memory-row').first()).toBeVisible();
        await checkPage(page, 'memories list');
        await page.getByTestId('memory-row').first().getByTestId('edit-memory').click();
        await expect(page.getByTestId('save-edit')).toBeVisible();
        await checkPage(page, 'memory edit');
        await page.getByTestId('reminders-tab').click();
        await expect(page.getByTestId('reminder-row').first()).toBeVisible();
        await checkPage(page, 'reminders list');
        await page.getByTestId('reminder-row').first().getByTestId('edit-reminder').click();
        await expect(page.getByTestId('edit-reminder-when')).toBeVisible();
        await checkPage(page, 'reminder edit');
        // An import, and what the page says after it.
        await page.getByTestId('memories-tab').click();
        await page.getByTestId('import-file').setInputFiles({
          name: 'memories.jsonl',
          mimeType: 'application/jsonl',
          buffer: Buffer.from(`{"content": "imported ${text}"}\n`),
        });
        await expect(page.getByTestId('memories-message')).toHaveText('Imported 1 memory.');
        await checkPage(page, 'after an import');
      });

      test('should pass axe on the Model page, with settings fixed by the environment and a test result', async ({ page }) => {
        await page.goto('/model');
        // This worker's model is set by the environment: the page says so.
        await expect(page.getByTestId('current-model')).toHaveAttribute('data-source', 'environment');
        await expect(page.getByTestId('fixed-note')).toBeVisible();
        await expect(page.getByTestId('model-provider')).toBeDisabled();
        await expect(page.getByTestId('found')).toHaveAttribute('aria-busy', 'false');
        await checkPage(page, 'model page');
        await page.getByTestId('test-connection').click();
        await expect(page.getByTestId('test-result')).toHaveAttribute('data-ok', 'true');
        await checkPage(page, 'model page, tested');
      });

      test('should pass axe with the Echo companion open', async ({ page }) => {
        await installSpeechFakes(page);
        await page.goto('/chat');
        await page.getByTestId('echo-companion').click();
        await expect(page.getByTestId('companion-panel')).toBeVisible();
        await expect(page.getByTestId('companion-panel').getByTestId('echo-input')).toBeVisible();
        await checkPage(page, 'echo companion');
      });
    });
  }
}
