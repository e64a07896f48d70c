// Every page of the dashboard runs under Imprint's Content-Security-Policy
// with zero violations: the built site's scripts, wasm, styles, event
// streams and Echo's WebSocket are all allowed, and nothing else is needed.
import { expect, test, type Page } from './fixtures';
import { installSpeechFakes } from './fixtures/speech';

/** Collects CSP violations seen by the page, reported from inside it. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__cspViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __cspViolation: (t: string) => void }).__cspViolation;
      report(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(`console: ${message.text()}`);
  });
  return violations;
}

test.describe('content security policy', () => {
  test('should load every page with no CSP violation', async ({ dashboard, page, request }) => {
    await installSpeechFakes(page);
    const violations = await watchViolations(page);
    const created = await request.post('/api/chat/sessions', { data: { title: 'Under the policy' } });
    const { id } = await created.json();

    // The routes of app::logic::route: root (lands on Chat), Chat, a chat,
    // Voice, and a page that does not exist.
    const pages: Array<[string, () => Promise<void>]> = [
      ['/', () => expect(dashboard.chatPage).toBeVisible()],
      ['/chat', () => expect(dashboard.chatPage).toBeVisible()],
      [`/chat/${id}`, () => expect(dashboard.page.getByRole('heading', { name: 'Under the policy' })).toBeVisible()],
      ['/voice', () => expect(dashboard.voicePage).toBeVisible()],
      ['/no-such-page', () => expect(dashboard.nav.chat).toBeVisible()],
    ];
    for (const [path, ready] of pages) {
      const response = await dashboard.goto(path);
      expect(response?.status(), path).toBe(200);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      await ready();
      // The model status is fetched once the app runs: the API is reached.
      await expect(dashboard.modelStatus).toBeVisible();
      expect(violations, `violations on ${path}`).toEqual([]);
    }
  });

  test('should keep Echo working under the policy', async ({ dashboard, page }) => {
    await installSpeechFakes(page);
    const violations = await watchViolations(page);
    await dashboard.goto('/voice');
    await expect(dashboard.voicePage).toBeVisible();
    // Typed text goes over Echo's WebSocket and the reply comes back on it.
    await page.getByTestId('echo-input').fill('hello under the policy');
    await page.getByTestId('echo-input').press('Enter');
    await expect(page.getByTestId('echo-reply').last()).toContainText('hello under the policy');
    expect(violations).toEqual([]);
  });
});
