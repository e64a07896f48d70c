import { test, expect, uniqueTrigger } from './fixtures';
import type { APIRequestContext } from '@playwright/test';

// A long chat opens with only its newest messages read from the server and
// drawn; older ones are read and drawn in pages on the way up, without
// moving what is on screen.
test('should open a long chat at its newest messages and draw older ones on the way up in place', async ({ page, request, chat }) => {
  const { id } = await (await request.post('/api/chat/sessions', { data: {} })).json();
  // 100 exchanges (200 entries), each a reply of the stand-in: "You said: …".
  for (let n = 1; n <= 100; n++) await exchange(request, id, `Note ${n}`);

  // The chat opens with one read of its newest page, not the whole history.
  const reads: { before?: number; limit?: number; got: number; older: number }[] = [];
  page.on('response', async (response) => {
    if (!response.url().includes('/api/dashboard/get_session_page')) return;
    const { page: asked } = response.request().postDataJSON();
    const body = await response.json();
    reads.push({ ...asked, got: body.messages.length, older: body.older });
  });
  await page.goto(`/chat/${id}`);
  const list = page.getByTestId('messages');
  const asked = list.getByTestId('user-message');
  await expect(list.getByTestId('assistant-message').last()).toHaveText('You said: Note 100');
  await expect(list.getByTestId('assistant-message').last()).toBeInViewport();
  // The newest 60 entries: exchanges 71 to 100.
  await expect(asked).toHaveCount(30);
  await expect(asked.first()).toHaveText('Note 71');
  await expect(page.getByTestId('older-messages')).toHaveText('Show earlier messages (140)');
  expect(reads).toEqual([{ limit: 60, got: 60, older: 140 }]);

  // Scrolled to the top, the next 100 entries are drawn above "Note 71",
  // which stays where it was on screen.
  const anchor = asked.filter({ hasText: /^Note 71$/ });
  const before = await list.evaluate((el) => {
    el.scrollTop = 0;
    const note = [...el.querySelectorAll('[data-testid="user-message"]')].find((m) => m.textContent === 'Note 71');
    return note!.getBoundingClientRect().top;
  });
  await expect(asked).toHaveCount(80);
  await expect(asked.first()).toHaveText('Note 21');
  // The page puts the scroll back in the animation frame after it draws
  // the entries, before they are painted; on a busy machine the test can
  // look in between, so it waits for that frame.
  await expect.poll(async () => Math.abs((await anchor.boundingBox())!.y - before)).toBeLessThanOrEqual(2);

  // The rest on request (a click that does not scroll, as from the
  // keyboard); then there is nothing earlier.
  await page.getByTestId('older-messages').dispatchEvent('click');
  await expect(asked).toHaveCount(100);
  await expect(asked.first()).toHaveText('Note 1');
  await expect(page.getByTestId('older-messages')).toHaveCount(0);
  expect(reads.slice(1)).toEqual([
    { before: 141, limit: 100, got: 100, older: 40 },
    { before: 41, limit: 100, got: 40, older: 0 },
  ]);

  // A new exchange joins the history read: nothing twice, nothing lost.
  await chat.say('Note 101');
  await expect(list.getByTestId('assistant-message').last()).toHaveText('You said: Note 101');
  await expect(page.getByTestId('live-reply')).toHaveCount(0);
  await expect(asked).toHaveCount(101);
  await expect(asked.first()).toHaveText('Note 1');
  await expect(list.getByTestId('assistant-message')).toHaveCount(101);
  await expect(page.getByTestId('older-messages')).toHaveCount(0);
});

/** Says `message` in chat `id` and reads the reply's stream to its end. */
async function exchange(request: APIRequestContext, id: string, message: string) {
  const started = await request.post(`/api/chat/sessions/${id}/messages`, { data: { message } });
  const { reply_id } = await started.json();
  const stream = await request.get(`/api/chat/sessions/${id}/reply?reply_id=${reply_id}`);
  expect(await stream.text()).toContain('"type":"done"');
}

// What a stored row shows (a save's line linking to its memory, how a reply
// ended) is drawn the same from an older page read on the way up.
test('should draw activity links and ending notes from older pages', async ({ page, request, standin }) => {
  const saved = uniqueTrigger('older-save');
  const cut = uniqueTrigger('older-cut');
  await standin!.script(
    { trigger: saved, turns: [{ calls: [{ name: 'store', arguments: { content: `${saved} the gate code is 2580` } }] }, { chunks: ['Saved.'] }] },
    { trigger: cut, turns: [{ chunks: ['Half an answer'], finish_reason: 'length' }] },
  );
  const { id } = await (await request.post('/api/chat/sessions', { data: {} })).json();
  await exchange(request, id, `${saved}: remember the gate code is 2580`);
  await exchange(request, id, `${cut}: tell me everything`);
  for (let n = 1; n <= 40; n++) await exchange(request, id, `Filler ${n}`);
  const stored = await (await request.get(`/api/chat/sessions/${id}`)).json();
  const ending = stored.messages.find((m: { ended?: string }) => m.ended)?.ended;
  expect(ending).toBeTruthy();
  expect(stored.messages.length).toBeGreaterThan(80);
  const memories = await (await request.get(`/api/memories?q=${encodeURIComponent(saved)}`)).json();

  await page.goto(`/chat/${id}`);
  const list = page.getByTestId('messages');
  await expect(list.getByTestId('assistant-message').last()).toHaveText('You said: Filler 40');
  await expect(list.getByTestId('activity-link')).toHaveCount(0);
  await expect(list.getByTestId('reply-ended')).toHaveCount(0);

  await list.evaluate((el) => { el.scrollTop = 0; });
  await expect(page.getByTestId('older-messages')).toHaveCount(0);
  const link = list.getByTestId('activity-link');
  await expect(link).toHaveCount(1);
  await expect(link).toHaveAttribute('href', `/memories?memory=${memories.memories[0].id}`);
  await expect(list.getByTestId('reply-ended')).toHaveAttribute('data-ended', ending);
  await expect(list.getByTestId('user-message').first()).toContainText(saved);
});

// A long list of chats draws its most recent 50 first and the rest as the
// user scrolls down the sidebar.
test('should draw a long list of chats in part and the rest on the way down', async ({ page, request, chat }) => {
  const ids: string[] = [];
  for (let n = 1; n <= 60; n++) {
    const { id } = await (await request.post('/api/chat/sessions', { data: { title: `Chat ${n}` } })).json();
    ids.push(id);
  }
  // The worker's server holds the chats of earlier tests too.
  const total = (await (await request.get('/api/chat/sessions')).json()).sessions.length;
  await page.goto('/chat');
  await expect(chat.sessionRows).toHaveCount(50);
  // Most recent first: chats 60 down to 11.
  await expect(chat.sessionRows.first().locator('.session-title')).toHaveText('Chat 60');
  await expect(chat.sessionRows.last().locator('.session-title')).toHaveText('Chat 11');
  await expect(page.getByTestId('more-chats')).toHaveText(`Show more chats (${total - 50})`);

  // Near the end of the list, the next 200 are drawn: all of them here.
  expect(total).toBeLessThanOrEqual(250);
  await page.getByRole('complementary', { name: 'Chats' }).evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await expect(chat.sessionRows).toHaveCount(total);
  await expect(chat.row(ids[0]).locator('.session-title')).toHaveText('Chat 1');
  await expect(page.getByTestId('more-chats')).toHaveCount(0);
  await chat.row(ids[0]).getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/chat/${ids[0]}$`));
});
