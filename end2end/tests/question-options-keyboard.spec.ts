// A question card's options by keyboard alone: a toolbar named by the
// question, one Tab stop that arrows, Home and End move through and Tab
// leaves, and the second option answered from the message box in a few
// key presses (issue #40: at most 8).
import type { Locator } from '@playwright/test';
import { test, expect, uniqueTrigger, type Page, type Scenario } from './fixtures';

const MOST_PRESSES = 8;

function askScenario(trigger: string, options: string[], allowOther: boolean): Scenario {
  return {
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question: 'Which project?', options, allow_other: allowOther } }] },
      { chunks: ['Here are the notes.'] },
    ],
  };
}

/** Whether the focus is inside `group`. */
function focusIn(group: Locator): Promise<boolean> {
  return group.evaluate((el) => el.contains(document.activeElement));
}

/** Counts the key presses it is given. */
function counter(page: Page) {
  let presses = 0;
  return {
    press: async (key: string) => {
      presses += 1;
      await page.keyboard.press(key);
    },
    count: () => presses,
  };
}

test.describe('question options by keyboard', () => {
  for (const allowOther of [true, false]) {
    const shape = allowOther ? 'with a box for own words' : 'with options only';
    test(`should answer the second option from the message box in at most ${MOST_PRESSES} key presses (${shape})`, async ({ chat, standin, page }) => {
      const trigger = uniqueTrigger('options-keys');
      await standin!.script(askScenario(trigger, ['Imprint', 'Billing'], allowOther));
      await chat.startNewChat();
      await chat.say(trigger);
      await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
      // The card takes the focus as it arrives; the user goes back to the
      // message box, where the count starts.
      await expect(allowOther ? chat.ownAnswer : chat.option('Imprint')).toBeFocused();
      await chat.messageBox.focus();
      await expect(chat.messageBox).toBeFocused();

      const options = chat.questionCard.getByRole('toolbar', { name: 'Which project?' });
      const keys = counter(page);
      // Back up to the options' one Tab stop, past whatever the card has
      // after them ("You decide", the own-words box and its Send).
      while (keys.count() < MOST_PRESSES && !(await focusIn(options))) {
        await keys.press('Shift+Tab');
      }
      await expect(chat.option('Imprint')).toBeFocused();
      await keys.press('ArrowRight');
      await expect(chat.option('Billing')).toBeFocused();
      await keys.press('Enter');
      await expect(chat.questionCard).toContainText('Answered: Billing');
      await expect(chat.assistantMessages.last()).toContainText('Here are the notes.');
      console.log(`options by keyboard (${shape}): ${keys.count()} key presses from the message box to the second option answered`);
      expect(keys.count()).toBeLessThanOrEqual(MOST_PRESSES);
    });
  }

  test('should name the options by the question, move with arrows, Home and End, and leave with Tab', async ({ chat, standin, page }) => {
    const trigger = uniqueTrigger('options-roles');
    await standin!.script(askScenario(trigger, ['Red', 'Green', 'Blue'], true));
    await chat.startNewChat();
    await chat.say(trigger);
    await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');

    // The card is a group, and its options a toolbar, both named by the
    // question; the toolbar says how to move in it.
    await expect(chat.questionCard).toHaveAttribute('role', 'group');
    await expect(chat.questionCard).toHaveAccessibleName('Which project?');
    const options = chat.questionCard.getByRole('toolbar', { name: 'Which project?' });
    await expect(options).toHaveAccessibleDescription('Arrow keys move between the choices; Enter picks one.');
    const buttons = options.getByRole('button');
    await expect(buttons).toHaveText(['Red', 'Green', 'Blue']);
    // One Tab stop among them.
    await expect(options.locator('[tabindex="0"]')).toHaveCount(1);

    await expect(chat.ownAnswer).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await expect(chat.option('Red')).toBeFocused();
    await page.keyboard.press('End');
    await expect(chat.option('Blue')).toBeFocused();
    await page.keyboard.press('Home');
    await expect(chat.option('Red')).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(chat.option('Green')).toBeFocused();
    await expect(options.locator('[tabindex="0"]')).toHaveText('Green');

    // Tab leaves the group (to the box for own words), and Shift+Tab comes
    // back to the option left.
    await page.keyboard.press('Tab');
    await expect(chat.ownAnswer).toBeFocused();
    expect(await focusIn(options)).toBe(false);
    await page.keyboard.press('Shift+Tab');
    await expect(chat.option('Green')).toBeFocused();
  });
});
