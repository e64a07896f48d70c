// The dashboard shell: landing, navigation, deep links, theme and model status.
import { expect, test, type Theme } from './fixtures';

test.describe('landing', () => {
  test('should land on the Chat page when the dashboard root is opened', async ({ dashboard, page, consoleErrors }) => {
    await dashboard.goto('/');

    await expect(page).toHaveURL(/\/chat$/);
    await expect(dashboard.chatPage).toBeVisible();
    await expect(dashboard.nav.chat).toHaveAttribute('aria-current', 'page');
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('navigation', () => {
  test('should switch between Chat and Voice with the nav links', async ({ dashboard, page }) => {
    await dashboard.goto('/chat');
    await expect(dashboard.chatPage).toBeVisible();
    await expect(dashboard.nav.chat).toHaveAttribute('aria-current', 'page');
    await expect(dashboard.nav.voice).not.toHaveAttribute('aria-current');

    await dashboard.nav.voice.click();
    await expect(page).toHaveURL(/\/voice$/);
    await expect(dashboard.voicePage).toBeVisible();
    await expect(dashboard.chatPage).toBeHidden();
    await expect(dashboard.nav.voice).toHaveAttribute('aria-current', 'page');
    await expect(dashboard.nav.chat).not.toHaveAttribute('aria-current');

    await dashboard.nav.chat.click();
    await expect(page).toHaveURL(/\/chat$/);
    await expect(dashboard.chatPage).toBeVisible();
    await expect(dashboard.voicePage).toBeHidden();
    await expect(dashboard.nav.chat).toHaveAttribute('aria-current', 'page');
    await expect(dashboard.nav.voice).not.toHaveAttribute('aria-current');
  });
});

test.describe('deep links', () => {
  test('should open the Voice page directly from its URL', async ({ dashboard }) => {
    const response = await dashboard.goto('/voice');

    expect(response?.status()).toBe(200);
    await expect(dashboard.voicePage).toBeVisible();
    await expect(dashboard.nav.voice).toHaveAttribute('aria-current', 'page');
  });

  test('should open a chat session directly from its URL', async ({ dashboard, request }) => {
    const created = await request.post('/api/chat/sessions', { data: { title: 'Deep link' } });
    const { id } = await created.json();
    const response = await dashboard.goto(`/chat/${id}`);

    expect(response?.status()).toBe(200);
    await expect(dashboard.chatPage).toBeVisible();
    await expect(dashboard.openSession).toHaveAttribute('data-session-id', id);
    await expect(dashboard.page.getByRole('heading', { name: 'Deep link' })).toBeVisible();
  });

  test.describe('of a chat that does not exist', () => {
    // The browser logs the API's 404 for the missing chat.
    test.use({ allowConsoleErrors: true });

    test('should say so', async ({ dashboard, consoleErrors }) => {
      const response = await dashboard.goto('/chat/no-such-chat');

      expect(response?.status()).toBe(200);
      await expect(dashboard.openSession).toHaveAttribute('data-session-id', 'no-such-chat');
      await expect(dashboard.page.getByText('This chat does not exist')).toBeVisible();
      expect(consoleErrors.length).toBeGreaterThan(0);
      for (const error of consoleErrors) expect(error).toContain('404');
    });
  });
});

test.describe('theme', () => {
  const systemSchemes: Theme[] = ['dark', 'light'];

  for (const system of systemSchemes) {
    const other: Theme = system === 'dark' ? 'light' : 'dark';

    test.describe(`with a ${system} system preference`, () => {
      test.use({ colorScheme: system });

      test(`should follow the system and use the ${system} theme`, async ({ dashboard }) => {
        await dashboard.goto('/chat');

        await expect(dashboard.root).toHaveAttribute('data-theme', system);
      });

      test(`should switch to ${other} with the toggle and keep it after a reload`, async ({ dashboard, page }) => {
        await dashboard.goto('/chat');
        await expect(dashboard.root).toHaveAttribute('data-theme', system);

        await dashboard.themeToggle.click();
        await expect(dashboard.root).toHaveAttribute('data-theme', other);
        expect(await dashboard.storedTheme()).toBe(other);

        await page.reload();
        await expect(dashboard.themeToggle).toBeVisible();
        await expect(dashboard.root).toHaveAttribute('data-theme', other);
        expect(await dashboard.theme()).toBe(other);
      });
    });
  }
});

test.describe('model status', () => {
  test('should show the model as ready when it answers', async ({ dashboard }) => {
    await dashboard.goto('/chat');

    await expect(dashboard.modelStatus).toHaveAttribute('data-state', 'ready');
    await expect(dashboard.modelStatus).toContainText('standin');
  });
});
