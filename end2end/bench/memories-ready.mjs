// Benchmark: time until the Memories page shows its first list with
// 10,000 memories, on loopback in headless Chromium. Starts the release
// binary with a fresh data directory, imports 10,000 memories through
// `POST /api/memories/import`, loads /memories in a fresh browser context N
// times, and prints how long from the navigation's start until the first
// page of memories has rendered (the page's own clock, performance.now()).
// A measurement, not a test.
//   node bench/memories-ready.mjs [RUNS=20]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const MEMORIES = 10_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const runs = Number(process.argv[2] ?? 20);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imprint-bench-'));
const server = spawn(path.join(root, 'target/release/imprint'), [], {
  env: { ...process.env, IMPRINT_ADDR: '127.0.0.1:0', IMPRINT_DATA_DIR: dataDir, IMPRINT_DIST_DIR: path.join(root, 'dist') },
  stdio: ['ignore', 'pipe', 'inherit'],
});
// However the script ends, the server goes with it.
process.on('exit', () => server.kill('SIGTERM'));
const baseURL = await new Promise((resolve, reject) => {
  createInterface({ input: server.stdout }).on('line', (line) => {
    const match = /imprint listening on (http:\/\/\S+)/.exec(line);
    if (match) resolve(match[1]);
  });
  server.once('exit', (code) => reject(new Error(`server exited (${code})`)));
});
// In bodies under the 64 KiB limit.
const words = ['plan', 'call', 'invoice', 'trip', 'garden', 'meeting', 'notes', 'review', 'budget', 'recipe'];
for (let start = 0; start < MEMORIES; start += 100) {
  const lines = [];
  for (let i = start; i < start + 100; i++) {
    const content = Array.from({ length: 20 + (i % 40) }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    lines.push(JSON.stringify({ content: `${i} ${content}`, project: `project${i % 12}` }));
  }
  const response = await fetch(`${baseURL}/api/memories/import`, { method: 'POST', body: lines.join('\n') });
  if (!response.ok) throw new Error(`import failed: ${response.status} ${await response.text()}`);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const ready = [];
for (let i = 0; i < runs + 1; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${baseURL}/memories`);
  await page.locator('[data-testid="memory-row"]').nth(19).waitFor();
  const ms = await page.evaluate(() => performance.now());
  if (i > 0) ready.push(ms); // the first run warms the server's file cache
  await context.close();
}
await browser.close();
server.kill('SIGTERM');
fs.rmSync(dataDir, { recursive: true, force: true });
ready.sort((a, b) => a - b);
const pick = (q) => ready[Math.min(ready.length - 1, Math.floor(q * ready.length))];
console.log(`Memories page ready with ${MEMORIES} memories (navigation start → first 20 rows rendered), ${runs} runs, fresh context each:`);
console.log(`  p50 ${pick(0.5).toFixed(1)} ms, p95 ${pick(0.95).toFixed(1)} ms, min ${ready[0].toFixed(1)} ms  (target ≤ 300 ms)`);
