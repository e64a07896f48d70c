// Accessibility beyond axe: what the live region says, keyboard-only use
// (skip link, arrow keys in a card, Escape), motion and contrast
// preferences, and the phone layout.
import { test, expect, uniqueTrigger, InboxPanel, clearWaiting, type Page, type Scenario } from './fixtures';

function askScenario(trigger: string, options = ['Imprint', 'Billing'], allowOther = true): Scenario {
  return {
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question: 'Which project?', options, allow_other: allowOther } }] },
      { chunks: ['Here are the notes.'] },
    ],
  };
}

/** Deletes every chat, so the page's list (and its Tab stops) is known. */
async function deleteAllChats(page: Page) {
  const { sessions } = await (await page.request.get('/api/chat/sessions')).json();
  for (const s of sessions as { id: string }[]) {
    expect((await page.request.delete(`/api/chat/sessions/${s.id}`)).status()).toBe(204);
  }
}

test.describe('announcements', () => {
  test.beforeEach(async ({ request }) => clearWaiting(request));

  test('should announce a question once with its choices, the count, and the reply that ends', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('announce');
    await standin!.script(askScenario(trigger));
    const announcer = page.getByTestId('announcer');
    await chat.startNewChat();
    await expect(announcer).toHaveAttribute('aria-live', 'polite');
    await expect(announcer).toHaveAttribute('role', 'status');
    await chat.say(trigger);

    await expect(announcer).toContainText('Imprint asks: Which project? Choices: Imprint, Billing, or your own words');
    await expect(announcer).toContainText('1 question is waiting for you');
    await expect(announcer.getByText(/^Imprint asks/)).toHaveCount(1);
    // A screen reader names the card by its question.
    await expect(chat.questionCard).toHaveAccessibleName('Which project?');

    await chat.option('Billing').click();
    await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
    await expect(announcer).toContainText('Reply finished');
    await expect(announcer).toContainText('Nothing is waiting for you');
  });

  test('should announce a question in one window only when two show the chat', async ({ chat, standin, page, context }) => {
    const trigger = uniqueTrigger('two-windows');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    const second = await context.newPage();
    await second.goto(page.url());
    await expect(second.getByTestId('announcer')).toHaveAttribute('aria-live', 'polite');
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(second.getByTestId('question-card')).toHaveAttribute('data-state', 'waiting');
    const asks = (p: Page) => p.getByTestId('announcer').getByText(/^Imprint asks/);
    await expect
      .poll(async () => (await asks(page).count()) + (await asks(second).count()), {
        message: 'the question is said by exactly one window',
      })
      .toBe(1);
    await second.close();
  });

  test('should leave out "your own words" when they are not allowed, and say a marked ending', async ({ chat, standin, page }) => {
    const [ask, cut] = [uniqueTrigger('closed'), uniqueTrigger('cut')];
    await standin!.script(askScenario(ask, ['Red', 'Blue'], false), {
      trigger: cut,
      turns: [{ chunks: ['Half an answer'], finish_reason: 'length' }],
    });
    const announcer = page.getByTestId('announcer');
    await chat.startNewChat();
    await chat.say(ask);
    await expect(announcer).toContainText('Imprint asks: Which project? Choices: Red or Blue');
    await chat.option('Red').click();
    await expect(announcer).toContainText('Reply finished');

    await chat.say(cut);
    await expect(page.getByTestId('reply-ended')).toHaveAttribute('data-ended', 'length');
    await expect(announcer).toContainText('The model reached its length limit');
  });
});

test.describe('keyboard', () => {
  test('should start a chat, answer the second option and open the inbox with the keyboard alone', async ({ page, standin, request }) => {
    await clearWaiting(request);
    await deleteAllChats(page);
    const trigger = uniqueTrigger('keys');
    await standin!.script(askScenario(trigger));
    let presses = 0;
    const press = async (key: string) => {
      presses += 1;
      await page.keyboard.press(key);
    };
    await page.goto('/chat');
    await expect(page.getByTestId('chat-page')).toBeVisible();

    await press('Tab');
    await expect(page.getByTestId('skip-link')).toBeFocused();
    await expect(page.getByTestId('skip-link')).toHaveText('Skip to the message box');
    await press('Enter'); // no chat open: the skip link leads to New chat
    await expect(page.getByTestId('new-chat')).toBeFocused();
    await press('Enter');
    const box = page.getByTestId('message-box');
    await expect(box).toBeFocused();
    const message = `find my notes ${trigger}`;
    await page.keyboard.type(message);
    await press('Enter');

    const card = page.getByTestId('question-card');
    await expect(card).toHaveAttribute('data-state', 'waiting');
    await expect(page.getByTestId('own-answer')).toBeFocused();
    await press('Shift+Tab'); // the options' one Tab stop
    const option = (name: string) => card.getByRole('button', { name, exact: true });
    await expect(option('Imprint')).toBeFocused();
    await press('ArrowRight');
    await expect(option('Billing')).toBeFocused();
    await press('Enter');
    await expect(card).toContainText('Answered: Billing');
    await expect(page.getByTestId('assistant-message').last()).toContainText('Here are the notes.');
    await expect(box).toBeFocused();

    // Back up the page to the header: the chat's Delete, Rename and link,
    // New chat, the theme, notifications, the model status (a link to the
    // Model page), then "Waiting for you": 8 stops. Live content from the
    // rest of the suite (a reminder's notice coming due) may add one or
    // two, so the walk stops at the inbox and allows 10.
    const inbox = new InboxPanel(page);
    const inboxFocused = () => inbox.button.evaluate((button) => button === document.activeElement);
    let backPresses = 0;
    while (backPresses < 10 && !(await inboxFocused())) {
      await press('Shift+Tab');
      backPresses += 1;
    }
    expect(backPresses).toBeGreaterThanOrEqual(8);
    await expect(inbox.button).toBeFocused();
    await press('Enter');
    await expect(inbox.panel).toBeVisible();
    await expect(inbox.panel).toBeFocused();
    console.log(`keyboard only: ${presses} key presses (and ${message.length} typed characters)`);

    await page.keyboard.press('Escape');
    await expect(inbox.panel).toBeHidden();
    await expect(inbox.button).toBeFocused();
  });

  test('should move between options with arrows, Home and End, as one Tab stop', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('arrows');
    await standin!.script(askScenario(trigger, ['Red', 'Green', 'Blue'], false));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.option('Red')).toBeFocused();
    await expect(chat.questionCard.locator('button.option[tabindex="0"]')).toHaveCount(1);
    // The one Tab stop is a toolbar named by the question that says arrows
    // move, to a screen reader (its description) and on the page while it
    // has the focus.
    const toolbar = chat.questionCard.getByRole('toolbar', { name: 'Which project?' });
    await expect(toolbar).toHaveAccessibleDescription('Arrow keys move between the choices; Enter picks one.');
    await expect(chat.questionCard.getByTestId('options-hint')).toBeVisible();
    await page.keyboard.press('ArrowDown');
    await expect(chat.option('Green')).toBeFocused();
    await page.keyboard.press('End');
    await expect(chat.option('Blue')).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(chat.option('Red')).toBeFocused();
    await page.keyboard.press('ArrowLeft');
    await expect(chat.option('Blue')).toBeFocused();
    await page.keyboard.press('Home');
    await expect(chat.option('Red')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByTestId('you-decide')).toBeFocused();
    await expect(chat.questionCard.getByTestId('options-hint')).toBeHidden();
  });

  test('should not take the focus from a message being typed', async ({ chat, standin, page, request }) => {
    const trigger = uniqueTrigger('typing');
    await standin!.script(askScenario(trigger));
    const id = await chat.startNewChat();
    await chat.messageBox.fill('I was writing this');
    await expect(chat.messageBox).toBeFocused();
    // The question comes from a reply started elsewhere (another window).
    expect((await request.post(`/api/chat/sessions/${id}/messages`, { data: { message: trigger } })).status()).toBe(202);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.messageBox).toBeFocused();
    await expect(chat.messageBox).toHaveValue('I was writing this');
  });

  test('should close the Echo companion with Escape and give the focus back', async ({ page }) => {
    await page.goto('/chat');
    const button = page.getByTestId('echo-companion');
    await button.click();
    const panel = page.getByTestId('companion-panel');
    await expect(panel.getByTestId('echo-input')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(button).toBeFocused();
  });

  test('should show a focus ring that stands out in both themes', async ({ page }) => {
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto('/chat');
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat', exact: true });
      await expect(link).toBeFocused();
      await expect(link).toHaveCSS('outline-style', 'solid');
      const ratio = await link.evaluate((el) => {
        const parse = (c: string) => c.match(/[\d.]+/g)!.slice(0, 3).map(Number);
        const lum = ([r, g, b]: number[]) => {
          const f = (v: number) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const ring = getComputedStyle(el).outlineColor;
        const bg = getComputedStyle(el.closest('header')!).backgroundColor;
        const [a, b] = [lum(parse(ring)), lum(parse(bg))].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
      });
      expect(ratio).toBeGreaterThanOrEqual(3);
    }
  });
});

test.describe('motion and contrast', () => {
  test('should stop the waiting pulse and smooth scrolling when motion is reduced', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('motion');
    await standin!.script(askScenario(trigger));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
    await expect(chat.questionCard).toHaveCSS('animation-name', 'waiting-pulse');
    await expect(page.locator('html')).toHaveCSS('scroll-behavior', 'smooth');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect(chat.questionCard).toHaveCSS('animation-name', 'none');
    await expect(page.locator('html')).toHaveCSS('scroll-behavior', 'auto');
  });

  test('should strengthen borders when more contrast is asked for', async ({ chat, page }) => {
    await chat.startNewChat();
    await expect(chat.messageBox).toHaveCSS('border-top-width', '1px');
    const normal = await chat.messageBox.evaluate((el) => getComputedStyle(el).borderTopColor);
    await page.emulateMedia({ contrast: 'more' });
    await expect(chat.messageBox).toHaveCSS('border-top-width', '2px');
    await expect(chat.messageBox).not.toHaveCSS('border-top-color', normal);
  });
});

test.describe('phone layout', () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test('should keep the header on one line with the rest in a menu', async ({ page }) => {
    for (const path of ['/chat', '/voice', '/memories']) {
      await page.goto(path);
      const header = page.locator('header.topbar');
      await expect(page.getByTestId('more-button')).toBeVisible();
      const height = await header.evaluate((el) => el.getBoundingClientRect().height);
      expect(height, `header height on ${path}`).toBeLessThanOrEqual(56);
    }
    await expect(page.getByTestId('theme-toggle')).toBeHidden();
    await page.getByTestId('more-button').click();
    await expect(page.getByTestId('theme-toggle')).toBeVisible();
    await expect(page.getByTestId('model-status')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('theme-toggle')).toBeHidden();
    await expect(page.getByTestId('more-button')).toBeFocused();
  });

  test('should show the chat list as a drawer, with words that fit', async ({ chat, page }) => {
    const id = await chat.startNewChat();
    await page.goto('/chat');
    await expect(page.getByText('Open a chat from “Chats” above, or start a new one.')).toBeVisible();
    await expect(page.getByText('Open a chat on the left')).toBeHidden();
    await expect(chat.row(id)).toBeHidden();
    const toggle = page.getByTestId('chats-toggle');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await expect(chat.row(id)).toBeVisible();
    await chat.row(id).getByRole('link').click();
    await expect(chat.conversation).toHaveAttribute('data-session-id', id);
    await expect(chat.row(id)).toBeHidden();
  });

  test('should make every control in the header and the chat bar at least 44 px', async ({ chat, page }) => {
    await chat.startNewChat();
    const small = await page.evaluate(() =>
      [...document.querySelectorAll('header.topbar a, header.topbar button, .sessions-bar button, .composer button')]
        .filter((el) => (el as HTMLElement).offsetParent !== null)
        .map((el) => ({ el: el.textContent?.trim() || el.getAttribute('aria-label'), r: el.getBoundingClientRect() }))
        .filter(({ r }) => r.width < 44 || r.height < 44)
        .map(({ el, r }) => `${el}: ${r.width}x${r.height}`),
    );
    expect(small).toEqual([]);
  });

  test('should keep the message box above the on-screen keyboard', async ({ chat, page }) => {
    // A visual viewport that the test shrinks, as an on-screen keyboard does.
    await page.addInitScript(() => {
      const fake = Object.assign(new EventTarget(), {
        width: window.innerWidth, height: window.innerHeight, offsetTop: 0, offsetLeft: 0,
        pageTop: 0, pageLeft: 0, scale: 1,
      });
      Object.defineProperty(window, 'visualViewport', { value: fake, configurable: true });
      (window as unknown as { keyboard: (h: number) => void }).keyboard = (h: number) => {
        fake.height = window.innerHeight - h;
        fake.dispatchEvent(new Event('resize'));
      };
    });
    await chat.startNewChat();
    await page.evaluate(() => (window as unknown as { keyboard: (h: number) => void }).keyboard(300));
    await expect(page.locator('.shell')).toHaveCSS('height', '440px');
    const bottom = await chat.messageBox.evaluate((el) => el.getBoundingClientRect().bottom);
    expect(bottom).toBeLessThanOrEqual(440);
  });
});
