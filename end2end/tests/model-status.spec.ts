import { test, expect } from './fixtures';

// This file's server has no model to talk to.
test.use({
  useStandInModel: false,
  imprintEnv: { IMPRINT_CHAT_PROVIDER: 'vllm', IMPRINT_CHAT_BASE_URL: 'http://127.0.0.1:9/v1' },
});

test.describe('model status without a model', () => {
  test('should show the model as offline and say how to connect one', async ({ dashboard }) => {
    await dashboard.goto('/chat');

    await expect(dashboard.modelStatus).toBeVisible();
    await expect(dashboard.modelStatus).toHaveAttribute('data-state', 'offline');
    await expect(dashboard.modelStatus).toHaveAttribute('title', /IMPRINT_CHAT_PROVIDER/);
  });
});
