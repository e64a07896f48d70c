import { defineConfig, devices } from '@playwright/test';

// Debian's Chromium: Playwright's own browser download is not reachable here
// (install with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1, never `playwright install`).
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Flags verified on these machines (running as root, no network but the
// package registries, no GPU).
const chromiumArgs = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: './tests',
  outputDir: 'test-results',
  // Each worker starts its own server with its own data directory and port,
  // and every test gets a fresh browser context, so tests are independent.
  fullyParallel: true,
  // Two cores: two workers, each with one server and one browser.
  workers: 2,
  forbidOnly: !!process.env.CI,
  // A flaky test is a bug to fix, not to retry: no retries, in CI too.
  retries: 0,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  // No `webServer`: the `imprint` fixture starts the real server per worker.
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: { executablePath, args: chromiumArgs },
      },
    },
  ],
});
