// The Model page: a model server found on this machine is picked, tested,
// saved, and answers the next message, with no restart. This file's server
// has no model fixed by the environment (the page chooses it); its
// stand-in model is found on loopback through IMPRINT_PROBE_PORTS.
import { test as base, expect, uniqueTrigger } from './fixtures';
import { startStandIn, type StandIn } from './fixtures/standin';

const test = base.extend<object, { found: StandIn }>({
  found: [
    async ({}, use) => {
      const standin = await startStandIn();
      try {
        await use(standin);
      } finally {
        await standin.stop();
      }
    },
    { scope: 'worker' },
  ],
  // The worker's server probes the stand-in's port; nothing fixes its model.
  imprintEnv: [
    async ({ found }, use) => {
      await use({ IMPRINT_PROBE_PORTS: new URL(found.baseURL).port });
    },
    { scope: 'worker' },
  ],
});
test.use({ useStandInModel: false });

test.describe('the Model page', () => {
  test('should pick a found model, test it, save it, and have it answer the next message', async ({ page, found, chat }) => {
    const trigger = uniqueTrigger('model-page');
    await found.script(
      {
        trigger: 'Imprint connection test',
        turns: [{ chunks: ['Hello from the stand-in.'], calls: [{ name: 'connection_check', arguments: { status: 'ready' } }] }],
      },
      { trigger, turns: [{ chunks: ['The stand-in answers.'] }] },
    );
    await page.goto('/chat');
    await page.getByTestId('model-status').click();
    await expect(page).toHaveURL(/\/model$/);

    const server = page.locator(`[data-testid="found-server"][data-base-url="${found.baseURL}"]`);
    const model = server.getByRole('button', { name: 'standin', exact: true });
    await model.click();
    await expect(model).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByTestId('model-base-url')).toHaveValue(found.baseURL);
    await expect(page.getByTestId('model-name')).toHaveValue('standin');

    await page.getByTestId('test-connection').click();
    const result = page.getByTestId('test-result');
    await expect(result).toHaveAttribute('data-ok', 'true');
    await expect(result).toContainText('Hello from the stand-in.');
    await expect(result).toContainText('native tool calls');
    await expect(page.getByTestId('model-tool-format')).toHaveValue('native');

    await page.getByTestId('save-connection').click();
    await expect(page.getByTestId('model-message')).toContainText('Saved');
    await expect(page.getByTestId('current-model')).toContainText('standin');
    await expect(page.getByTestId('current-model')).toHaveAttribute('data-source', 'page');
    await expect(page.getByTestId('current-base-url')).toContainText(found.baseURL);
    await expect(page.getByTestId('model-status')).toContainText('vllm · standin');

    await chat.startNewChat();
    await chat.say(`hello ${trigger}`);
    await expect(chat.assistantMessages.last()).toContainText('The stand-in answers.');
    const asked = (await found.requests()).filter((r) => JSON.stringify(r).includes(trigger));
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => r.model === 'standin')).toBe(true);
  });

  test('should keep a typed key on the server, show it masked, and remove it', async ({ page, found }) => {
    const key = `sk-e2e-${uniqueTrigger('secret')}-WXYZ`;
    await page.goto('/model');
    await expect(page.getByTestId('current-model')).toBeVisible();
    await page.getByTestId('model-provider').selectOption('openai');
    await page.getByTestId('model-base-url').fill(found.baseURL);
    await page.getByTestId('model-name').fill('standin');
    await page.getByTestId('model-key').fill(key);
    await page.getByTestId('save-connection').click();

    await expect(page.getByTestId('model-message')).toContainText('Saved');
    await expect(page.getByTestId('current-key')).toContainText('••••WXYZ');
    await expect(page.getByTestId('model-key')).toHaveValue('');
    await expect(page.getByTestId('saved-key')).toHaveCount(1);
    expect(await page.content()).not.toContain(key);

    await page.getByRole('button', { name: `Remove the key for ${found.baseURL}` }).click();
    await expect(page.getByTestId('model-message')).toHaveText('Key removed.');
    await expect(page.getByTestId('saved-key')).toHaveCount(0);
    await expect(page.getByTestId('current-key')).toHaveText('none');
  });

  test('should say so when a typed address answers nothing', async ({ page }) => {
    await page.goto('/model');
    await expect(page.getByTestId('current-model')).toBeVisible();
    // Port 9 (discard) has nothing listening on this machine.
    await page.getByTestId('model-provider').selectOption('vllm');
    await page.getByTestId('model-base-url').fill('http://127.0.0.1:9/v1');
    await page.getByTestId('list-models').click();
    await expect(page.getByTestId('model-error')).toContainText('http://127.0.0.1:9/v1');
    await page.getByTestId('model-name').fill('anything');
    await page.getByTestId('test-connection').click();
    await expect(page.getByTestId('test-result')).toHaveAttribute('data-ok', 'false');
    await expect(page.getByTestId('test-result')).toContainText('The test failed');
  });
});
