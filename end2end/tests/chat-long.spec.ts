import { test, expect } from './fixtures';

// A long chat opens with only its newest messages read from the server and
// drawn; older ones are read and drawn in pages on the way up, without
// moving what is on screen.
test('should open a long chat at its newest messages and draw older ones on the way up in place', async ({ page, request, chat }) => {
  const { id } = await (await request.post('/api/chat/sessions', { data: {} })).json();
  // 100 exchanges (200 entries), each a reply of the stand-in: "You said: …".
  for (let n = 1; n <= 100; n++) {
    const started = await request.post(`/api/chat/sessions/${id}/messages`, { data: { message: `Note ${n}` } });
    const { reply_id } = await started.json();
    const stream = await request.get(`/api/chat/sessions/${id}/reply?reply_id=${reply_id}`);
    expect(await stream.text()).toContain('"type":"done"');
  }

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
  const after = (await anchor.boundingBox())!.y;
  expect(Math.abs(after - before)).toBeLessThanOrEqual(2);

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

// A long list of chats draws its most recent 50 first and the rest as the
// user scrolls down the sidebar.
test('should draw a long list of chats in part and the rest on the way down', async ({ page, request, chat }) => {
  const ids: string[] = [];
  for (let n = 1; n <= 60; n++) {
    const { id } = await (await request.post('/api/chat/sessions', { data: { title: `Chat ${n}` } })).json();
    ids.push(id);
  }
  await page.goto('/chat');
  await expect(chat.sessionRows).toHaveCount(50);
  // Most recent first: chats 60 down to 11.
  await expect(chat.sessionRows.first()).toContainText('Chat 60');
  await expect(chat.sessionRows.last().locator('.session-title')).toHaveText('Chat 11');
  await expect(page.getByTestId('more-chats')).toHaveText('Show more chats (10)');

  await page.getByRole('complementary', { name: 'Chats' }).evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await expect(chat.sessionRows).toHaveCount(60);
  await expect(chat.sessionRows.last().locator('.session-title')).toHaveText('Chat 1');
  await expect(page.getByTestId('more-chats')).toHaveCount(0);
  await chat.row(ids[0]).getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/chat/${ids[0]}$`));
});
