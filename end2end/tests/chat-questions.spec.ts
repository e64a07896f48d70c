import { test, expect, uniqueTrigger, type Scenario } from './fixtures';

function askScenario(trigger: string, options = ['Imprint', 'Billing'], allowOther = true): Scenario {
  return {
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question: 'Which project?', options, allow_other: allowOther } }] },
      { chunks: ['Here are the notes.'] },
    ],
  };
}

test.describe('question cards', () => {
  test('should focus the card and answer with an option', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('option');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(`find my notes ${trigger}`);

    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.questionCard.getByTestId('question-text')).toHaveText('Which project?');
    await expect(chat.ownAnswer).toBeFocused();
    await chat.option('Billing').click();

    await expect(chat.questionCard).toHaveAttribute('data-state', 'answered');
    await expect(chat.questionCard).toContainText('Answered: Billing');
    await expect(chat.option('Imprint')).toBeDisabled();
    await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
    const requests = await standin!.requests();
    expect(JSON.stringify(requests.at(-1))).toContain('The user answered: Billing');
  });

  test('should focus the first option when own words are not allowed', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('closed');
    await standin!.script(askScenario(trigger, ['Red', 'Blue'], false));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.option('Red')).toBeFocused();
    await expect(chat.ownAnswer).toHaveCount(0);
    // The options are one Tab stop: an arrow key moves between them.
    await chat.page.keyboard.press('ArrowRight');
    await expect(chat.option('Blue')).toBeFocused();
    await chat.page.keyboard.press('Enter');
    await expect(chat.questionCard).toContainText('Answered: Blue');
  });

  test('should send own words with Enter', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('own-words');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await chat.ownAnswer.fill('the garden project');
    await chat.ownAnswer.press('Enter');
    await expect(chat.questionCard).toContainText('Answered: the garden project');
    await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
  });

  test('should let the message box answer a waiting question', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('message-box');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.messageBox).toHaveAttribute('placeholder', /Answer the question/);
    await chat.say('Imprint');
    await expect(chat.questionCard).toContainText('Answered: Imprint');
    await expect(chat.userMessages).toHaveCount(1); // the answer is not a new message
  });

  test('should show a waiting question after a reload and in a second window', async ({ chat, standin, context }) => {
    const trigger = uniqueTrigger('reopen');
    await standin!.script(askScenario(trigger));
    const id = await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.row(id).getByTestId('waiting-marker')).toBeVisible();

    await chat.page.reload();
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');

    const second = await context.newPage();
    await second.goto(`/chat/${id}`);
    const secondCard = second.getByTestId('question-card');
    await expect(secondCard).toHaveAttribute('data-state', 'waiting');
    await secondCard.getByRole('button', { name: 'Imprint', exact: true }).click();

    await expect(secondCard).toContainText('Answered: Imprint');
    // The first window sees the answer given elsewhere.
    await expect(chat.questionCard).toContainText('Answered: Imprint');
    await expect(chat.row(id).getByTestId('waiting-marker')).toHaveCount(0);
  });

  test('should show the other window’s answer instead of an error when it answered first', async ({ chat, standin, context, request }) => {
    const trigger = uniqueTrigger('race');
    await standin!.script(askScenario(trigger));
    const id = await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    const session = await (await request.get(`/api/chat/sessions/${id}`)).json();
    const questionId = session.reply.question.id;
    // Another window answers behind this page's back…
    const answered = await request.post(`/api/chat/sessions/${id}/answer`, { data: { id: questionId, answer: 'Billing' } });
    expect(answered.status()).toBe(200);
    await expect(chat.questionCard).toContainText('Answered: Billing');
    await expect(chat.questionCard.getByRole('alert')).toHaveCount(0);
  });

  test('should keep the answered question in the chat history', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('history');
    await standin!.script(askScenario(trigger));
    const id = await chat.startNewChat();
    await chat.say(trigger);
    await chat.option('Billing').click();
    await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');

    await chat.page.goto(`/chat/${id}`);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'answered');
    await expect(chat.questionCard).toContainText('Which project?');
    await expect(chat.questionCard).toContainText('Answered: Billing');
    await expect(chat.option('Billing')).toHaveAttribute('aria-pressed', 'true');
  });

  test('should mark the card unanswered when the reply is stopped', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('stop');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await chat.stop.click();
    await expect(chat.questionCard).toHaveAttribute('data-state', 'unanswered');
    await expect(chat.questionCard).toContainText('Not answered');
    await expect(chat.stop).toBeHidden();
  });

  test('should say when the reply goes on without an answer', async ({ chat, standin }) => {
    const trigger = uniqueTrigger('expiry');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toContainText(/goes on at .*\d\d:\d\d with its best assumption/);
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`should keep the card legible in the ${theme} theme`, async ({ chat, standin, page }, testInfo) => {
      await page.emulateMedia({ colorScheme: theme });
      const trigger = uniqueTrigger(`contrast-${theme}`);
      await standin!.script(askScenario(trigger));
      await chat.startNewChat();
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await chat.say(trigger);
      await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');

      const ratios = await chat.questionCard.evaluate((card) => {
        const parse = (c: string) => c.match(/[\d.]+/g)!.slice(0, 3).map(Number);
        const lum = ([r, g, b]: number[]) => {
          const f = (v: number) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const ratio = (fg: string, bg: string) => {
          const [a, b] = [lum(parse(fg)), lum(parse(bg))].sort((x, y) => y - x);
          return (a + 0.05) / (b + 0.05);
        };
        const bgOf = (el: Element) => getComputedStyle(el).backgroundColor;
        const text = card.querySelector('[data-testid="question-text"]')!;
        const option = card.querySelector('button.option')!;
        return {
          question: ratio(getComputedStyle(text).color, bgOf(card)),
          option: ratio(getComputedStyle(option).color, bgOf(option)),
        };
      });
      await testInfo.attach(`question-card-${theme}.png`, { body: await chat.questionCard.screenshot(), contentType: 'image/png' });
      expect(ratios.question).toBeGreaterThanOrEqual(4.5);
      expect(ratios.option).toBeGreaterThanOrEqual(4.5);
    });
  }

  test('should fit a 375 px wide screen', async ({ chat, standin, page }) => {
    await page.setViewportSize({ width: 375, height: 700 });
    const trigger = uniqueTrigger('narrow');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expect(chat.ownAnswer).toBeInViewport();
  });

  test("should show Imprint's own question when the model guesses a reminder time", async ({ chat, standin, page, imprint }) => {
    const trigger = uniqueTrigger('grounded');
    await standin!.script({
      trigger,
      turns: [
        // A time the user never gave.
        { calls: [{ name: 'remind', arguments: { text: 'Send the invoice', at: '2026-11-30T10:00' } }] },
        { chunks: ['I will remind you.'] },
      ],
    });
    await chat.startNewChat();
    await chat.say(`Remind me to send the invoice ${trigger}`);

    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.questionCard).toContainText('Imprint needs to know');
    await expect(chat.questionCard.getByTestId('question-text')).toContainText('What time should I remind you to send the invoice');
    await chat.option('Tomorrow, 09:00').click();
    await expect(chat.questionCard).toContainText('Answered: Tomorrow, 09:00');
    await expect(chat.assistantMessages.last()).toContainText('I will remind you.');

    const reminders = await (await page.request.get(`${imprint.baseURL}/api/reminders`)).json();
    const mine = reminders.reminders.filter((r: { text: string }) => r.text === 'Send the invoice');
    expect(mine).toHaveLength(1);
    const due = new Date(mine[0].due_at);
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    expect([due.getDate(), due.getHours(), due.getMinutes()]).toEqual([tomorrow.getDate(), 9, 0]);

    // History keeps the question as Imprint's, answered.
    await page.reload();
    await expect(chat.questionCard).toHaveAttribute('data-state', 'answered');
    await expect(chat.questionCard).toContainText('Imprint needs to know');
  });
});
