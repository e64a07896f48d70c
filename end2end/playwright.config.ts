import { defineConfig, devices } from '@playwright/test';
import { chromiumArgs, executablePath } from './tests/fixtures/browser';

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
