// Benchmark: time until the Chat page is ready, on loopback in headless
// Chromium. Starts the release binary with a fresh data directory, loads
// /chat in a fresh browser context N times, and prints how long from the
// navigation's start until the sessions list has rendered (the page's
// own clock, performance.now()). A measurement, not a test.
//
// Then long chats (issue 17): with the scripted stand-in model
// (target/release/examples/standin_model) the data directory is seeded
// through the API with 600 chats, one of 800 messages and one of 5,000
// (user and assistant in turn, each a short numbered line), and each long
// chat is opened (/chat/ID) in a fresh context N/2 times: the time from
// the navigation's start to the frame in which its last message is drawn
// inside the visible part of the message list, with the medians of where
// the time went (the wasm fetched, the app's first call sent, the chat's
// messages read, the first message and the sessions list drawn). The stand-in keeps every
// request it received, each with the whole chat so far: seeding the
// 5,000-message chat makes it hold about 5 GB for the length of the run.
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

/** Spawns `bin` and resolves with the first capture of `ready` in its stdout. */
function start(bin, args, env, ready) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = ready.exec(line);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${path.basename(bin)} exited (${code})`)));
  });
  return { child, url };
}

const standin = start(path.join(root, 'target/release/examples/standin_model'), ['127.0.0.1:0'], {},
  /standin listening on (http:\/\/\S+)/);
const standinURL = await standin.url;
const imprint = start(path.join(root, 'target/release/imprint'), [], {
  IMPRINT_ADDR: '127.0.0.1:0', IMPRINT_DATA_DIR: dataDir, IMPRINT_DIST_DIR: path.join(root, 'dist'),
  IMPRINT_CHAT_PROVIDER: 'openai', IMPRINT_CHAT_BASE_URL: standinURL, IMPRINT_CHAT_MODEL: 'standin',
  IMPRINT_WRITING_SLOTS: '4',
}, /imprint listening on (http:\/\/\S+)/);
const server = imprint.child;
const baseURL = await imprint.url;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
async function api(method, route, body) {
  const response = await fetch(`${baseURL}${route}`, {
    method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response;
}

/** A new chat holding `messages` messages: user and assistant in turn,
 * each exchange a reply of the stand-in (which answers "You said: …"). */
async function seedChat(messages, label) {
  const { id } = await (await api('POST', '/api/chat/sessions', {})).json();
  for (let n = 1; n <= messages / 2; n++) {
    const text = n === messages / 2 ? `${label} exchange ${n}, the last` : `${label} exchange ${n}`;
    const { reply_id } = await (await api('POST', `/api/chat/sessions/${id}/messages`, { message: text })).json();
    // Read the reply's stream to its end, so the next message is not refused.
    const events = await api('GET', `/api/chat/sessions/${id}/reply?reply_id=${reply_id}`);
    const body = await events.text();
    if (!body.includes('"type":"done"')) throw new Error(`the reply to "${text}" did not finish`);
  }
  return id;
}

const seedStarted = performance.now();
for (let i = 0; i < 598; i++) await api('POST', '/api/chat/sessions', {});
const [long800, long5000] = await Promise.all([seedChat(800, 'Long'), seedChat(5000, 'Longer')]);
console.log(`Seeded 600 chats (one of 800 messages, one of 5,000) in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);

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

/** Navigation start → the frame in which the chat's last message (the
 * stand-in's answer to its last exchange) is drawn inside the visible part
 * of the message list, measured in the page on each animation frame. */
async function lastMessageVisible(id) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${baseURL}/chat/${id}`, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(() => {
    const list = document.querySelector('[data-testid="messages"]');
    // The first frames with the sessions list and with a message drawn.
    const seen = (window.__seen ??= {});
    seen.sessions ??= document.querySelector('[data-testid="session-list"]') ? performance.now() : undefined;
    seen.message ??= list?.querySelector('.msg') ? performance.now() : undefined;
    const last = list?.querySelector('.msg:last-of-type');
    if (!last || !/exchange \d+, the last/.test(last.textContent)) return false;
    const box = last.getBoundingClientRect();
    const view = list.getBoundingClientRect();
    return box.height > 0 && box.bottom <= view.bottom + 1 && box.top >= view.top - 1 && performance.now();
  }, null, { polling: 'raf', timeout: 60_000 });
  const ms = await handle.jsonValue();
  const drawn = await page.locator('[data-testid="messages"] .msg').count();
  // Where the time went, from the page's resource timings: the wasm
  // fetched, the app started (its first call to the server sent), the
  // chat's messages read, then drawn.
  const phases = await page.evaluate(() => {
    const resources = performance.getEntriesByType('resource');
    const wasm = resources.find((r) => r.name.endsWith('.wasm'));
    const calls = resources.filter((r) => r.name.includes('/api/dashboard/'));
    const read = resources.find((r) => /\/api\/dashboard\/get_session/.test(r.name));
    return {
      wasm: wasm?.responseEnd ?? NaN,
      started: calls.length ? Math.min(...calls.map((r) => r.startTime)) : NaN,
      read: read?.responseEnd ?? NaN,
      readBytes: read?.encodedBodySize ?? NaN,
      sessions: window.__seen?.sessions ?? NaN,
      message: window.__seen?.message ?? NaN,
    };
  });
  await context.close();
  return { ms, drawn, phases };
}

const longRuns = Math.max(2, Math.floor(runs / 2));
const longChats = [];
for (const [label, id, target] of [['800 messages', long800, 300], ['5,000 messages', long5000, 400]]) {
  const times = [];
  const phases = [];
  let drawn = 0;
  for (let i = 0; i < longRuns + 1; i++) {
    const run = await lastMessageVisible(id);
    if (i > 0) { // the first run warms the server's file cache
      times.push(run.ms);
      phases.push(run.phases);
    }
    drawn = run.drawn;
  }
  longChats.push({ label, times: times.sort((a, b) => a - b), drawn, target, phases });
}

await browser.close();
server.kill('SIGTERM');
standin.child.kill('SIGTERM');
fs.rmSync(dataDir, { recursive: true, force: true });
ready.sort((a, b) => a - b);
const pick = (q) => ready[Math.min(ready.length - 1, Math.floor(q * ready.length))];
const pickOf = (list, q) => list[Math.min(list.length - 1, Math.floor(q * list.length))];
const wasm = fs.readdirSync(path.join(root, 'dist')).find((f) => f.endsWith('.wasm'));
const raw = fs.statSync(path.join(root, 'dist', wasm)).size;
// The copies the release build wrote and Imprint sends (scripts/compress-site.mjs).
const copy = (ext) => {
  const file = path.join(root, 'dist', `${wasm}.${ext}`);
  return fs.existsSync(file) ? fs.statSync(file).size : null;
};
const gzip = copy('gz') ?? (await import('node:zlib')).gzipSync(fs.readFileSync(path.join(root, 'dist', wasm)), { level: 9 }).length;
const brotli = copy('br');
console.log(`Chat page ready (navigation start → sessions list rendered), ${runs} runs, fresh context each:`);
console.log(`  p50 ${pick(0.5).toFixed(1)} ms, p95 ${pick(0.95).toFixed(1)} ms, min ${ready[0].toFixed(1)} ms  (target ≤ 400 ms)`);
console.log(`Release wasm: ${raw} B (${(raw / 1024).toFixed(0)} KiB) raw, ${gzip} B (${(gzip / 1024).toFixed(1)} KiB) gzip -9${brotli === null ? '' : `, ${brotli} B brotli`} (target ≤ 300 KB gzip with everything)`);
console.log(`Long chat open (navigation start → last message visible), in a dashboard of 600 chats, ${longRuns} runs each, fresh context each:`);
const median = (values) => pickOf([...values].sort((a, b) => a - b), 0.5);
for (const { label, times, drawn, target, phases } of longChats) {
  console.log(`  ${label}: p50 ${pickOf(times, 0.5).toFixed(1)} ms, p95 ${pickOf(times, 0.95).toFixed(1)} ms, min ${times[0].toFixed(1)} ms, ${drawn} messages drawn  (target ≤ ${target} ms)`);
  const at = (key) => median(phases.map((p) => p[key]));
  console.log(`    medians from navigation start: wasm fetched ${at('wasm').toFixed(0)} ms, app's first call sent ${at('started').toFixed(0)} ms, `
    + `messages read ${at('read').toFixed(0)} ms (${(at('readBytes') / 1024).toFixed(0)} KiB), first message drawn ${at('message').toFixed(0)} ms, `
    + `sessions list drawn ${at('sessions').toFixed(0)} ms, last message visible ${median(times).toFixed(0)} ms`);
}
console.log(`load average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
