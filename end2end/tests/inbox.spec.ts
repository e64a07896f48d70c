import { test, expect, uniqueTrigger, InboxPanel, clearWaiting, type Scenario } from './fixtures';
import { installSpeechFakes, spoken, untilSpoken } from './fixtures/speech';

function askScenario(trigger: string, question = 'Which project?', options = ['Imprint', 'Billing']): Scenario {
  return {
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question, options } }] },
      { chunks: ['Here are the notes.'] },
    ],
  };
}

/** The id of the question waiting in a session, read from the API. */
async function waitingQuestionId(request: import('@playwright/test').APIRequestContext, sid: string): Promise<string> {
  const session = await (await request.get(`/api/chat/sessions/${sid}`)).json();
  return session.reply.question.id;
}

test.describe('waiting for you', () => {
  // Questions left open by earlier tests on this worker's server would count.
  test.beforeEach(async ({ request }) => clearWaiting(request));

  test('should count waiting questions in the badge and the title across two chats', async ({ chat, standin, page, request }) => {
    const [first, second] = [uniqueTrigger('count-a'), uniqueTrigger('count-b')];
    await standin!.script(askScenario(first, 'Which bed?'), askScenario(second, 'Which folder?'));
    const inbox = new InboxPanel(page);

    const a = await chat.startNewChat();
    await expect(inbox.count).toHaveText('0');
    await expect(page).toHaveTitle('Imprint');
    await chat.say(first);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(inbox.count).toHaveText('1');
    await expect(page).toHaveTitle('(1) Imprint');

    await chat.startNewChat();
    await chat.say(second);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(inbox.count).toHaveText('2');
    await expect(page).toHaveTitle('(2) Imprint');

    await chat.option('Billing').click();
    await expect(chat.questionCard).toContainText('Answered: Billing');
    await expect(inbox.count).toHaveText('1');
    await expect(page).toHaveTitle('(1) Imprint');

    // Answered elsewhere (another window, the API): the count goes down too.
    const answered = await request.post(`/api/chat/sessions/${a}/answer`, {
      data: { id: await waitingQuestionId(request, a), answer: 'Imprint' },
    });
    expect(answered.status()).toBe(200);
    await expect(inbox.count).toHaveText('0');
    await expect(page).toHaveTitle('Imprint');
  });

  test('should answer in the panel and close the card in the chat, in a second window too', async ({ chat, standin, page, context }) => {
    const trigger = uniqueTrigger('panel');
    await standin!.script(askScenario(trigger, 'Which garden bed?', ['North', 'South']));
    const id = await chat.startNewChat();
    await chat.say(`plan the beds ${trigger}`);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');

    const second = await context.newPage();
    await second.goto(`/chat/${id}`);
    const secondCard = second.getByTestId('question-card');
    await expect(secondCard).toHaveAttribute('data-state', 'waiting');

    const inbox = new InboxPanel(page);
    await inbox.open();
    await expect(inbox.entries).toHaveCount(1);
    const entry = inbox.entries.first();
    await expect(entry).toContainText(`plan the beds ${trigger}`); // the chat's title
    await expect(entry).toContainText('The model asks');
    await expect(entry).toContainText(/min left/);
    await expect(entry.getByTestId('question-text')).toHaveText('Which garden bed?');
    await entry.getByRole('button', { name: 'South', exact: true }).click();

    await expect(inbox.entries).toHaveCount(0);
    await expect(inbox.empty).toBeVisible();
    const chatCard = chat.conversation.getByTestId('question-card');
    await expect(chatCard).toContainText('Answered: South');
    await expect(secondCard).toContainText('Answered: South');
    await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
  });

  test('should ask for notification permission and notify while the page is hidden', async ({ chat, standin, page, context, request }) => {
    // Record what the page asks for and shows; a switch for the page's
    // visibility, as when the user looks at another tab.
    await page.addInitScript(() => {
      const w = window as unknown as Record<string, unknown>;
      const Real = window.Notification;
      const shown: { title: string; body?: string; notification: { onclick: unknown } }[] = [];
      w.__shown = shown;
      w.__permissionRequests = 0;
      w.__hidden = false;
      function Recorded(title: string, options?: NotificationOptions) {
        let notification: { onclick: unknown };
        try {
          notification = new Real(title, options);
        } catch {
          notification = { onclick: null };
        }
        shown.push({ title, body: options?.body, notification });
        window.dispatchEvent(new Event('fake-notification'));
        return notification;
      }
      Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
      (Recorded as unknown as Record<string, unknown>).requestPermission = () => {
        (w.__permissionRequests as number)++;
        return Promise.resolve(Real.permission);
      };
      (window as unknown as Record<string, unknown>).Notification = Recorded;
      Object.defineProperty(document, 'visibilityState', { get: () => (w.__hidden ? 'hidden' : 'visible') });
      Object.defineProperty(document, 'hidden', { get: () => w.__hidden });
    });
    const trigger = uniqueTrigger('nudge');
    await standin!.script(askScenario(trigger, 'Which invoice?', ['March', 'April']));

    await page.goto('/chat');
    await page.getByTestId('enable-notifications').click();
    expect(await page.evaluate(() => (window as unknown as Record<string, number>).__permissionRequests)).toBe(1);
    await context.grantPermissions(['notifications']);

    // The user looks elsewhere; a question starts waiting in a chat.
    await page.evaluate(() => ((window as unknown as Record<string, unknown>).__hidden = true));
    const sid = (await (await request.post('/api/chat/sessions', { data: { title: 'Invoices' } })).json()).id;
    const started = await request.post(`/api/chat/sessions/${sid}/messages`, { data: { message: trigger } });
    expect(started.status()).toBe(202);

    // Woken by the recorder's own event when the page shows one.
    const shown = await page.evaluate(
      () =>
        new Promise<[string, string | undefined][]>((resolve) => {
          const w = window as unknown as { __shown: { title: string; body?: string }[] };
          const list = () => w.__shown.map((n): [string, string | undefined] => [n.title, n.body]);
          if (w.__shown.length > 0) return resolve(list());
          window.addEventListener('fake-notification', () => resolve(list()), { once: true });
        }),
    );
    expect(shown).toEqual([['A question is waiting', 'Invoices: Which invoice?']]);

    // Clicking it opens the chat at its card.
    await page.evaluate(() => {
      const n = (window as unknown as { __shown: { notification: { onclick: () => void } }[] }).__shown[0].notification;
      n.onclick();
    });
    await expect(page).toHaveURL(new RegExp(`/chat/${sid}$`));
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.questionCard.getByTestId('question-text')).toHaveText('Which invoice?');
  });

  test("should leave the model's question to Imprint with You decide, in history after a reload", async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('decide-model');
    await standin!.script(askScenario(trigger));
    const id = await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await chat.questionCard.getByTestId('you-decide').click();

    await expect(chat.questionCard).toHaveAttribute('data-state', 'left-to-imprint');
    await expect(chat.questionCard).toContainText('Left to Imprint');
    await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
    const requests = await standin!.requests();
    expect(JSON.stringify(requests.at(-1))).toContain('The user left the choice to you');

    await page.goto(`/chat/${id}`);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'left-to-imprint');
    await expect(chat.questionCard).toContainText('Which project?');
    await expect(chat.questionCard).toContainText('Left to Imprint');
  });

  test('should take "up to you" typed in the message box as You decide', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('decide-typed');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await chat.say('Up to you!');
    await expect(chat.questionCard).toHaveAttribute('data-state', 'left-to-imprint');
    await expect(chat.userMessages).toHaveCount(1);
  });

  test("should take the first option of Imprint's reminder-time question with You decide", async ({ chat, standin, page, imprint }) => {
    const trigger = uniqueTrigger('decide-imprint');
    await standin!.script({
      trigger,
      turns: [
        // A time the user never gave: Imprint asks itself.
        { calls: [{ name: 'remind', arguments: { text: `Pay the rent ${trigger}`, at: '2026-11-30T10:00' } }] },
        { chunks: ['I set the reminder.'] },
      ],
    });
    const id = await chat.startNewChat();
    await chat.say(`Remind me to pay the rent ${trigger}`);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.questionCard).toContainText('Imprint needs to know');
    // The options come first among the card's buttons.
    const first = (await chat.questionCard.getByRole('button').first().textContent())!.trim();
    await chat.questionCard.getByTestId('you-decide').click();

    await expect(chat.questionCard).toHaveAttribute('data-state', 'left-to-imprint');
    await expect(chat.questionCard).toContainText(`Left to Imprint: it chose ${first}`);
    await expect(chat.assistantMessages.last()).toContainText('I set the reminder.');
    const reminders = await (await page.request.get(`${imprint.baseURL}/api/reminders`)).json();
    expect(reminders.reminders.filter((r: { text: string }) => r.text === `Pay the rent ${trigger}`)).toHaveLength(1);
    const requests = await standin!.requests();
    expect(JSON.stringify(requests.at(-1))).toContain('The user left the choice to Imprint, which chose');

    await page.goto(`/chat/${id}`);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'left-to-imprint');
    await expect(chat.questionCard).toContainText('Imprint needs to know');
    await expect(chat.questionCard).toContainText(`Left to Imprint: it chose ${first}`);
  });

  test('should have Echo say once when a question waits in a chat while it listens', async ({ page, standin, request }) => {
    await installSpeechFakes(page);
    const trigger = uniqueTrigger('spoken-nudge');
    await standin!.script(askScenario(trigger, 'Which shelf?'));
    await page.goto('/voice');
    await page.getByTestId('mic').click();
    await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'true');

    const sid = (await (await request.post('/api/chat/sessions', { data: { title: 'Bookshelf' } })).json()).id;
    expect((await request.post(`/api/chat/sessions/${sid}/messages`, { data: { message: trigger } })).status()).toBe(202);
    const inbox = new InboxPanel(page);
    await expect(inbox.count).toHaveText('1');
    await untilSpoken(page, 'A question is waiting in Bookshelf');
    // Once per question, also when the list is loaded again.
    await page.getByTestId('mic').click();
    await page.getByTestId('mic').click();
    expect((await spoken(page)).filter((s) => s === 'A question is waiting in Bookshelf')).toHaveLength(1);
  });

  test('should add no session when the Voice page is visited', async ({ page, request }) => {
    const before = (await (await request.get('/api/chat/sessions')).json()).sessions.length;
    // Echo's answer to `hello` has come: whatever the visit does is done.
    const snapshot = page
      .waitForEvent('websocket')
      .then((socket) => socket.waitForEvent('framereceived', (frame) => String(frame.payload).includes('"snapshot"')));
    await page.goto('/voice');
    await snapshot;
    // The Talk button's microphone is drawn, not a font glyph.
    await expect(page.getByTestId('mic').locator('svg')).toBeVisible();
    const after = (await (await request.get('/api/chat/sessions')).json()).sessions.length;
    expect(after).toBe(before);
  });
});
