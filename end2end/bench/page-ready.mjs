// Benchmark: time until the Chat page is ready, on loopback in headless
// Chromium. Starts the release binary with a fresh data directory, loads
// /chat in a fresh browser context N times, and prints how long from the
// navigation's start until the sessions list has rendered (the page's
// own clock, performance.now()). A measurement, not a test.
//   node bench/page-ready.mjs [RUNS=20]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runs = Number(process.argv[2] ?? 20);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imprint-bench-'));
const server = spawn(path.join(root, 'target/release/imprint'), [], {
  env: { ...process.env, IMPRINT_ADDR: '127.0.0.1:0', IMPRINT_DATA_DIR: dataDir, IMPRINT_DIST_DIR: path.join(root, 'dist') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const baseURL = await new Promise((resolve, reject) => {
  createInterface({ input: server.stdout }).on('line', (line) => {
    const match = /imprint listening on (http:\/\/\S+)/.exec(line);
    if (match) resolve(match[1]);
  });
  server.once('exit', (code) => reject(new Error(`server exited (${code})`)));
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const ready = [];
for (let i = 0; i < runs + 1; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${baseURL}/chat`);
  await page.locator('[data-testid="session-list"], .sessions p.muted:not(:has-text("Loading"))').first().waitFor();
  const ms = await page.evaluate(() => performance.now());
  if (i > 0) ready.push(ms); // the first run warms the server's file cache
  await context.close();
}
await browser.close();
server.kill('SIGTERM');
fs.rmSync(dataDir, { recursive: true, force: true });
ready.sort((a, b) => a - b);
const pick = (q) => ready[Math.min(ready.length - 1, Math.floor(q * ready.length))];
const wasm = fs.readdirSync(path.join(root, 'dist')).find((f) => f.endsWith('.wasm'));
const raw = fs.statSync(path.join(root, 'dist', wasm)).size;
const gzip = (await import('node:zlib')).gzipSync(fs.readFileSync(path.join(root, 'dist', wasm)), { level: 9 }).length;
console.log(`Chat page ready (navigation start → sessions list rendered), ${runs} runs, fresh context each:`);
console.log(`  p50 ${pick(0.5).toFixed(1)} ms, p95 ${pick(0.95).toFixed(1)} ms, min ${ready[0].toFixed(1)} ms  (target ≤ 400 ms)`);
console.log(`Release wasm: ${(raw / 1024).toFixed(0)} KiB raw, ${(gzip / 1024).toFixed(0)} KiB gzip -9 (target ≤ 250 KB gzip)`);
