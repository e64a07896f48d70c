// Issue 14 with the stand-in replaying what the built-in model did: a
// guessed time while Imprint asks, saves and questions nobody asked for,
// and tool-call markup as its last word. The page shows what happened.
import { test, expect, uniqueTrigger } from './fixtures';

const MANGLED = '{"name": "ask {"name": "ask_user", "arguments": {"name": "ask_user", "arguments":';

function tomorrowAtNine(): string {
  const d = new Date(Date.now() + 24 * 3600 * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T09:00`;
}

test('should show one true reminder line, one card and an answer without markup', async ({ chat, standin, page }) => {
  const trigger = uniqueTrigger('anna');
  await standin!.script({
    trigger,
    turns: [
      { calls: [{ name: 'remind', arguments: { text: 'Call Anna', at: tomorrowAtNine() } }] },
      // The job is done: a save nobody asked for, and a question.
      {
        calls: [
          { name: 'store', arguments: { content: 'Call Anna' } },
          { name: 'ask_user', arguments: { question: 'Do you want to call Anna?', options: ['Yes', 'No'] } },
        ],
      },
      // The reserved answer: only markup.
      { chunks: [MANGLED.slice(0, 20), MANGLED.slice(20)] },
    ],
  });
  await chat.startNewChat();
  await chat.say(`${trigger}: Remind me to call Anna.`);

  const card = chat.questionCard;
  await expect(card).toHaveAttribute('data-state', 'waiting');
  // Imprint asks when before the model starts: no call yet, so no line
  // (and no guessed time) while the question waits.
  await expect(page.getByTestId('tool-activity')).toHaveCount(0);
  await chat.option('Tomorrow, 09:00').click();
  await expect(card).toHaveAttribute('data-state', 'answered');
  await expect(chat.stop).toBeHidden();

  const check = async () => {
    const lines = page.getByTestId('tool-activity');
    await expect(lines.first()).toHaveText(/^Reminder set for \w{3} \d{1,2} \w{3} 09:00: Call Anna$/);
    const texts = await lines.allTextContents();
    expect(texts.filter((t) => t.startsWith('Reminder set'))).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith('Saved'))).toHaveLength(0);
    // Once the reminder asked for is set, research ends: the model's
    // later save and question are never run, so no line is drawn for them.
    await expect(page.locator('.muted-activity')).toHaveCount(0);
    await expect(chat.questionCard).toHaveCount(1);
    await expect(chat.assistantMessages.last()).toHaveText(/^Done: reminder set for .* 09:00 to call Anna\.\s*$/);
    const all = await chat.conversation.innerText();
    expect(all).not.toContain('{"name"');
    expect(all).not.toContain('<tool_call>');
  };
  await check();
  await page.reload();
  await expect(chat.assistantMessages.last()).toBeVisible();
  await check();
});
