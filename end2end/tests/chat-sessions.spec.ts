import { test, expect, uniqueTrigger } from './fixtures';

test.describe('chat sessions', () => {
  test('should create, rename and delete a chat from the sidebar', async ({ chat, page }) => {
    const id = await chat.startNewChat();
    const row = chat.row(id);
    await expect(row).toContainText('New chat');

    await row.getByTestId('rename-chat').click();
    const input = row.getByTestId('rename-input');
    await input.fill('Holiday plans');
    await input.press('Enter');
    await expect(row).toContainText('Holiday plans');
    await page.reload();
    await expect(chat.row(id)).toContainText('Holiday plans');

    await chat.row(id).getByTestId('delete-chat').click();
    await chat.row(id).getByTestId('confirm-delete').click();
    await expect(chat.row(id)).toHaveCount(0);
    await expect(page).toHaveURL(/\/chat$/);
  });

  test('should keep a row asking to confirm a delete, or being renamed, while another window changes the list', async ({ chat, page }) => {
    const id = await chat.startNewChat();
    const row = chat.row(id);
    // Another window makes a chat: the list is read again and drawn anew.
    const elsewhere = async () => {
      const made = await page.request.post('/api/chat/sessions', { data: { title: `Elsewhere ${Date.now()}` } });
      expect(made.status()).toBe(201);
      const { id: other } = await made.json();
      await expect(chat.row(other)).toHaveCount(1);
    };

    await row.getByTestId('rename-chat').click();
    await row.getByTestId('rename-input').fill('Half typed');
    await elsewhere();
    await expect(chat.row(id).getByTestId('rename-input')).toHaveValue('Half typed');
    await chat.row(id).getByTestId('rename-input').press('Escape');

    await chat.row(id).getByTestId('delete-chat').click();
    await elsewhere();
    await chat.row(id).getByTestId('confirm-delete').click();
    await expect(chat.row(id)).toHaveCount(0);
  });

  test('should title a chat from its first message and list the newest first', async ({ chat, page }) => {
    const first = await chat.startNewChat();
    await chat.say('What did I note about tea?');
    await expect(chat.assistantMessages.last()).toContainText('You said: What did I note about tea?');
    await expect(chat.row(first)).toContainText('What did I note about tea?');

    const second = await chat.startNewChat();
    await expect(chat.sessionRows.first()).toHaveAttribute('data-session-id', second);
    await expect(page.getByRole('heading', { name: 'New chat' })).toBeVisible();
  });

  test('should show streamed text before the reply ends, then stop it', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('stream');
    await standin!.script({
      trigger,
      turns: [{ chunks: ['First part of the answer. ', 'Second part.'], stall: true }],
    });
    await chat.startNewChat();
    await chat.say(`please ${trigger}`);

    // The reply is still being written (it stalls): the text is already there.
    await expect(chat.streamingText).toContainText('First part of the answer. Second part.');
    await expect(chat.stop).toBeVisible();
    await expect(chat.send).toBeDisabled();

    await chat.stop.click();
    await expect(chat.stop).toBeHidden();
    const kept = chat.assistantMessages.last();
    await expect(kept).toContainText('First part of the answer. Second part.');
    await expect(kept).toContainText('Stopped.');
  });

  test('should render Markdown but never raw HTML from the model', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('markdown');
    await standin!.script({
      trigger,
      turns: [{ chunks: ['**Bold** point\n\n- one\n- two\n\n<img src=x onerror="window.hacked=1">'] }],
    });
    await chat.startNewChat();
    await chat.say(trigger);
    const answer = chat.assistantMessages.last();
    await expect(answer.locator('strong')).toHaveText('Bold');
    await expect(answer.locator('li')).toHaveCount(2);
    await expect(answer.locator('img')).toHaveCount(0);
    await expect(answer).toContainText('<img src=x');
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
  });

  test('should stream plain text, then show the Markdown rendered once the reply ends', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('rendered');
    await standin!.script({
      trigger,
      turns: [{ chunks: ['**Bold** start', '\n\n- one\n- two\n\n<b onclick="window.hacked=1">raw</b>'], delay_ms: 1500 }],
    });
    await chat.startNewChat();
    await chat.say(trigger);

    // While it streams, the text is shown as it is written, not rendered.
    await expect(chat.streamingText).toContainText('**Bold** start');
    await expect(chat.streamingText.locator('strong')).toHaveCount(0);

    // Hold the history reload that follows the end of the reply, so the
    // rendered answer seen is the one the `assistant_message` event brought.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/dashboard/get_session_page', async (route) => {
      await held;
      await route.continue();
    });
    const liveAnswer = page.getByTestId('live-reply').getByTestId('assistant-message');
    await expect(liveAnswer.locator('strong')).toHaveText('Bold');
    await expect(liveAnswer.locator('li')).toHaveCount(2);
    await expect(liveAnswer.locator('b')).toHaveCount(0);
    await expect(liveAnswer).toContainText('<b onclick');
    await expect(chat.streamingText).toHaveCount(0);
    // Clicking the raw tag's text runs nothing: it is text, not an element.
    await liveAnswer.getByText('onclick').click();
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();

    release();
    await expect(page.getByTestId('live-reply')).toHaveCount(0);
    const stored = chat.assistantMessages.last();
    await expect(stored.locator('strong')).toHaveText('Bold');
    await expect(stored.locator('li')).toHaveCount(2);
    await expect(stored.locator('b')).toHaveCount(0);
    await stored.getByText('onclick').click();
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
  });

  test('should let the user leave a chat while its history is read after a reply ends', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('leave');
    await standin!.script({ trigger, turns: [{ chunks: ['Here it is.'], delay_ms: 300 }] });
    await chat.startNewChat();
    // Hold the history read that follows the end of the reply.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reading!: () => void;
    const read = new Promise<void>((resolve) => (reading = resolve));
    await page.route('**/api/dashboard/get_session_page', async (route) => {
      reading();
      await held;
      await route.continue();
    });
    await chat.say(trigger);
    await read;
    // The reply has ended (its history read is held with any other).
    await expect(page.getByTestId('live-reply')).toContainText('Here it is.');
    await expect(chat.streamingText).toHaveCount(0);
    // The user goes to another page, and the read then ends.
    await page.getByRole('link', { name: 'Memories' }).click();
    await expect(page.getByTestId('memories-page')).toBeVisible();
    const answered = page.waitForResponse('**/api/dashboard/get_session_page');
    release();
    await answered;
    await page.unroute('**/api/dashboard/get_session_page');
    // The dashboard still works: back in the chat, the reply is in history.
    await page.goBack();
    await expect(chat.assistantMessages.last()).toContainText('Here it is.');
  });

  test('should show tool activity compactly', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('tools');
    await standin!.script({
      trigger,
      turns: [{ calls: [{ name: 'search', arguments: { query: 'green tea' } }] }, { chunks: ['Nothing about tea yet.'] }],
    });
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.assistantMessages.last()).toContainText('Nothing about tea yet.');
    await expect(chat.page.getByTestId('tool-activity')).toHaveText('Nothing found for “green tea”');
  });

  test('should keep Shift+Enter as a new line in the message box', async ({ chat }) => {
    await chat.startNewChat();
    await chat.messageBox.fill('line one');
    await chat.messageBox.press('Shift+Enter');
    await chat.messageBox.pressSequentially('line two');
    await expect(chat.messageBox).toHaveValue('line one\nline two');
    await chat.messageBox.press('Enter');
    await expect(chat.userMessages.last()).toHaveText('line one\nline two');
  });

  test('should open a new chat ready to type into, and keep each chat\'s unsent draft', async ({ chat, page }) => {
    const first = await chat.startNewChat();
    await expect(chat.messageBox).toBeFocused();
    // Typed without clicking the box first.
    await page.keyboard.type('a draft for the first chat');

    await chat.newChat.click();
    await expect(page).not.toHaveURL(new RegExp(`/chat/${first}$`));
    await expect(chat.conversation).not.toHaveAttribute('data-session-id', first);
    const second = (await chat.conversation.getAttribute('data-session-id'))!;
    await expect(chat.messageBox).toBeFocused();
    await expect(chat.messageBox).toHaveValue('');
    await page.keyboard.type('and one for the second');

    await chat.row(first).getByRole('link').click();
    await expect(chat.conversation).toHaveAttribute('data-session-id', first);
    await expect(chat.messageBox).toHaveValue('a draft for the first chat');
    await chat.messageBox.press('Enter');
    await expect(chat.userMessages.last()).toHaveText('a draft for the first chat');
    // Sent: the draft is gone with it.
    await expect(chat.messageBox).toHaveValue('');

    // A visit to another page keeps the second chat's draft.
    await page.getByRole('link', { name: 'Memories' }).click();
    await page.getByRole('link', { name: 'Chat' }).click();
    await chat.row(second).getByRole('link').click();
    await expect(chat.conversation).toHaveAttribute('data-session-id', second);
    await expect(chat.messageBox).toHaveValue('and one for the second');
  });
});
