// The Memories page (issue 19): search, edit in place, delete and undo;
// export, then import into a fresh data directory; a reminder's time edited
// in the grounding grammar; a chat's store/remind line linking to its row.
import fs from 'node:fs';
import { test, expect, uniqueTrigger } from './fixtures';
import type { APIRequestContext, Page } from '@playwright/test';
import { startRestartable } from './fixtures/restartable';

/** Adds a memory through the REST API (the page's list shows it). */
async function addMemory(request: APIRequestContext, body: Record<string, unknown>) {
  const response = await request.post('/api/memories', { data: body });
  expect(response.status()).toBe(201);
  return (await response.json()) as { id: number; content: string };
}

function row(page: Page, id: number) {
  return page.locator(`[data-testid="memory-row"][data-memory-id="${id}"]`);
}

test('should search, edit in place, delete and undo a memory', async ({ page, request }) => {
  const word = uniqueTrigger('quokka').replace(/[^a-z0-9]/gi, '');
  const memory = await addMemory(request, { content: `saw a ${word} at the zoo`, project: 'Trips', tags: ['animals'] });
  await addMemory(request, { content: 'an unrelated note about lunch' });

  await page.goto('/memories');
  await page.getByTestId('memory-search').fill(word);
  const rows = page.getByTestId('memory-row');
  await expect(rows).toHaveCount(1);
  await expect(row(page, memory.id).getByTestId('memory-content')).toHaveText(`saw a ${word} at the zoo`);
  await expect(row(page, memory.id).getByTestId('memory-project')).toHaveText('Trips');

  // Edit in place: content, project, tags. The edit keeps the word a word
  // of its own: the index stems ("…s" and "…ss" are different stems).
  await row(page, memory.id).getByTestId('edit-memory').click();
  await row(page, memory.id).getByTestId('edit-content').fill(`saw ${word} twice at the zoo`);
  await row(page, memory.id).getByTestId('edit-project').fill('Holidays');
  await row(page, memory.id).getByTestId('edit-tags').fill('animals, zoo');
  await row(page, memory.id).getByTestId('save-edit').click();
  await expect(row(page, memory.id).getByTestId('memory-content')).toHaveText(`saw ${word} twice at the zoo`);
  await expect(row(page, memory.id).getByTestId('memory-project')).toHaveText('Holidays');
  const stored = await (await request.get(`/api/memories?q=${word}`)).json();
  expect(stored.memories).toEqual([
    expect.objectContaining({ id: memory.id, project: 'Holidays', tags: ['animals', 'zoo'] }),
  ]);

  // Delete, then undo within the 10 s: the same id comes back.
  await row(page, memory.id).getByTestId('delete-memory').click();
  await expect(rows).toHaveCount(0);
  await expect(page.getByTestId('undo-bar')).toBeVisible();
  expect((await (await request.get(`/api/memories?q=${word}`)).json()).memories).toEqual([]);
  await page.getByTestId('undo').click();
  await expect(row(page, memory.id)).toBeVisible();
  await expect(page.getByTestId('undo-bar')).toBeHidden();
  const back = await (await request.get(`/api/memories?q=${word}`)).json();
  expect(back.memories.map((m: { id: number }) => m.id)).toEqual([memory.id]);

  // Still there after a reload.
  await page.reload();
  await page.getByTestId('memory-search').fill(word);
  await expect(row(page, memory.id).getByTestId('memory-content')).toHaveText(`saw ${word} twice at the zoo`);
});

test.describe('with bad input refused (the browser logs the 400)', () => {
  test.use({ allowConsoleErrors: true });

  test('should export memories and import them into a fresh data directory as the same rows', async ({
    page,
    request,
  }, testInfo) => {
    const tag = uniqueTrigger('export').replace(/[^a-z0-9]/gi, '');
    await addMemory(request, { content: `first ${tag}`, project: 'Export', tags: ['one'] });
    await addMemory(request, { content: `second ${tag}\nwith "quotes"`, created_at: '2025-05-01' });

    await page.goto('/memories');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
    const file = testInfo.outputPath('memories.jsonl');
    await download.saveAs(file);
    const exported = fs.readFileSync(file, 'utf8');
    expect(exported).toContain(`first ${tag}`);

    const fresh = await startRestartable({});
    try {
      await page.goto(`${fresh.baseURL}/memories`);
      await expect(page.getByTestId('no-memories')).toBeVisible();
      await page.getByTestId('import-file').setInputFiles(file);
      const lines = exported.trim().split('\n').length;
      await expect(page.getByTestId('memories-message')).toHaveText(`Imported ${lines} memories.`);
      const rows = (body: { memories: Record<string, unknown>[] }) =>
        body.memories.map((m) => [m.content, m.project, m.tags, m.created_at]);
      const here = await (await request.get('/api/memories?limit=200')).json();
      const there = await (await request.get(`${fresh.baseURL}/api/memories?limit=200`)).json();
      expect(rows(there)).toEqual(rows(here));
      await expect(page.getByTestId('memory-row')).toHaveCount(Math.min(lines, 20));

      // A bad file is refused whole, its bad line named.
      const bad = testInfo.outputPath('bad.jsonl');
      fs.writeFileSync(bad, '{"content": "fine"}\n{"content": 3}\n');
      await page.getByTestId('import-file').setInputFiles(bad);
      await expect(page.getByTestId('memories-message')).toContainText('line 2');
      const after = await (await request.get(`${fresh.baseURL}/api/memories?limit=200`)).json();
      expect(after.memories).toHaveLength(lines);
    } finally {
      await fresh.dispose();
    }
  });

  test('should import a file far over 64 KiB from the page, showing its progress', async ({ page }, testInfo) => {
    const fresh = await startRestartable({});
    try {
      const tag = uniqueTrigger('bulk').replace(/[^a-z0-9]/gi, '');
      const count = 12000;
      const lines = Array.from({ length: count }, (_, i) =>
        JSON.stringify({ content: `note ${i} ${tag} ${'x'.repeat(150)}`, project: 'Bulk' }),
      );
      const file = testInfo.outputPath('bulk.jsonl');
      fs.writeFileSync(file, lines.join('\n') + '\n');
      expect(fs.statSync(file).size).toBeGreaterThan(1024 * 1024);
      await page.goto(`${fresh.baseURL}/memories`);
      await expect(page.getByTestId('no-memories')).toBeVisible();
      await page.getByTestId('import-file').setInputFiles(file);
      await expect(page.getByTestId('memories-message')).toHaveText(`Imported ${count} memories.`);
      await expect(page.getByTestId('import-progress')).toHaveCount(0);
      const exported = await (await page.request.get(`${fresh.baseURL}/api/memories/export`)).text();
      expect(exported.trim().split('\n')).toHaveLength(count);
    } finally {
      await fresh.dispose();
    }
  });

  test("should set a reminder's time with \"tomorrow at 9\"", async ({ page, request }) => {
    const text = uniqueTrigger('water the plants');
    const created = await request.post('/api/reminders', { data: { text, at: 'in 3 hours' } });
    expect(created.status()).toBe(201);
    const { id } = await created.json();

    await page.goto('/memories');
    await page.getByTestId('reminders-tab').click();
    const reminder = page.locator(`[data-testid="reminder-row"][data-reminder-id="${id}"]`);
    await expect(reminder.getByTestId('reminder-text')).toHaveText(text);
    await reminder.getByTestId('edit-reminder').click();
    await reminder.getByTestId('edit-reminder-when').fill('whenever suits');
    await reminder.getByTestId('save-reminder').click();
    await expect(reminder.getByTestId('reminder-error')).toContainText('not a time');
    await reminder.getByTestId('edit-reminder-when').fill('tomorrow at 9');
    await reminder.getByTestId('save-reminder').click();

    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000);
    const day = tomorrow.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short' }).replace(',', '');
    await expect(reminder.getByTestId('reminder-when')).toHaveText(`${day} 09:00`);
    const list = await (await request.get('/api/reminders?status=upcoming')).json();
    const stored = list.reminders.find((r: { id: number }) => r.id === id);
    const due = new Date(stored.due_at);
    expect([due.getDate(), due.getHours(), due.getMinutes()]).toEqual([tomorrow.getDate(), 9, 0]);

    // Marked done, it moves to the done list.
    await reminder.getByTestId('reminder-done').click();
    await expect(reminder).toBeHidden();
    await page.getByTestId('done-reminders').click();
    await expect(reminder.getByTestId('reminder-text')).toHaveText(text);
  });
});

test('should keep a reminder being edited while another one comes due and its notice is dismissed', async ({ page, request }) => {
  const text = uniqueTrigger('renew the parking permit');
  const created = await request.post('/api/reminders', { data: { text, at: 'in 3 hours' } });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  await page.goto('/memories');
  await page.getByTestId('reminders-tab').click();
  const reminder = page.locator(`[data-testid="reminder-row"][data-reminder-id="${id}"]`);
  await reminder.getByTestId('edit-reminder').click();
  await reminder.getByTestId('edit-reminder-text').fill('Renew the permit online');
  await reminder.getByTestId('edit-reminder-when').fill('friday at 10');

  // Another reminder comes due: its notice shows and the list is read again.
  const other = uniqueTrigger('take the bins out');
  const soon = new Date(Date.now() + 1500).toISOString();
  expect((await request.post('/api/reminders', { data: { text: other, at: soon } })).status()).toBe(201);
  const toast = page.getByTestId('reminder-toast').filter({ hasText: other });
  await expect(toast).toBeVisible();
  await expect(reminder.getByTestId('edit-reminder-text')).toHaveValue('Renew the permit online');
  await expect(reminder.getByTestId('edit-reminder-when')).toHaveValue('friday at 10');
  await toast.getByRole('button', { name: 'Dismiss reminder' }).click();
  await expect(toast).toBeHidden();

  await reminder.getByTestId('save-reminder').click();
  await expect(reminder.getByTestId('reminder-text')).toHaveText('Renew the permit online');
  await expect(reminder.getByTestId('reminder-when')).toContainText('Fri');
});

test("should link a chat's save and reminder lines to the rows they wrote", async ({ chat, standin, page, request }) => {
  const trigger = uniqueTrigger('linked');
  const at = new Date(Date.now() + 48 * 3600 * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const iso = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T10:30`;
  await standin!.script({
    trigger,
    turns: [
      {
        calls: [
          { name: 'store', arguments: { content: `${trigger} the boiler code is 4411` } },
          { name: 'remind', arguments: { text: `${trigger} service the boiler`, at: iso } },
        ],
      },
      { chunks: ['Saved and set.'] },
    ],
  });
  const sid = await chat.startNewChat();
  await chat.say(`${trigger}: remember the boiler code is 4411 and remind me at ${iso} to service the boiler`);
  const links = page.getByTestId('activity-link');
  await expect(links).toHaveCount(2);

  const memories = await (await request.get(`/api/memories?q=${encodeURIComponent(trigger)}`)).json();
  const memoryId = memories.memories[0].id;
  await links.filter({ hasText: 'Saved' }).click();
  await expect(page).toHaveURL(new RegExp(`/memories\\?memory=${memoryId}$`));
  await expect(page.getByTestId('memory-row')).toHaveCount(1);
  await expect(row(page, memoryId).getByTestId('memory-content')).toHaveText(`${trigger} the boiler code is 4411`);

  await page.goBack();
  await expect(links).toHaveCount(2);
  await links.filter({ hasText: 'Reminder set' }).click();
  const reminders = await (await request.get('/api/reminders?status=upcoming')).json();
  const reminder = reminders.reminders.find((r: { text: string }) => r.text === `${trigger} service the boiler`);
  await expect(page).toHaveURL(new RegExp(`/memories\\?reminder=${reminder.id}$`));
  const shown = page.locator(`[data-testid="reminder-row"][data-reminder-id="${reminder.id}"]`);
  await expect(shown).toHaveClass(/focused/);
  // And the reminder links back to its chat.
  await shown.getByTestId('reminder-chat').click();
  await expect(page).toHaveURL(new RegExp(`/chat/${sid}$`));
});

test('should filter by project, and rename or merge a project', async ({ page, request }) => {
  const name = uniqueTrigger('Garden').replace(/[^a-z0-9]/gi, '');
  const other = `${name}x`;
  const first = await addMemory(request, { content: 'plant the tulips', project: name });
  const second = await addMemory(request, { content: 'prune the roses', project: other });

  await page.goto('/memories');
  await page.getByTestId('project-filter').selectOption(name);
  await expect(page.getByTestId('memory-row')).toHaveCount(1);
  await expect(row(page, first.id)).toBeVisible();

  // Merged into the other project: both memories are in it.
  await page.getByText('Rename or merge a project').click();
  await page.getByTestId('move-from').selectOption(name);
  await page.getByTestId('move-to').fill(other);
  await page.getByRole('button', { name: 'Move' }).click();
  await expect(page.getByTestId('memories-message')).toHaveText(`Moved 1 memory from ${name} to ${other}.`);
  await page.getByTestId('project-filter').selectOption(other);
  await expect(page.getByTestId('memory-row')).toHaveCount(2);
  await expect(row(page, second.id).getByTestId('memory-project')).toHaveText(other);
  await expect(row(page, first.id).getByTestId('memory-project')).toHaveText(other);
  const projects = await (await request.get(`/api/memories?project=${name}`)).json();
  expect(projects.memories).toEqual([]);
});
