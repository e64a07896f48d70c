// A call Imprint did not run (a save nobody asked for) is one quiet line
// that opens to say why, in the reply and in history after a reload.
import { test, expect, uniqueTrigger } from './fixtures';

test('should say why a save nobody asked for was not made when its line is opened', async ({ chat, standin, page }) => {
  const trigger = uniqueTrigger('tea');
  await standin!.script({
    trigger,
    turns: [
      { calls: [{ name: 'store', arguments: { content: 'Anna likes tea' } }] },
      { chunks: ['I found nothing about tea.'] },
    ],
  });
  await chat.startNewChat();
  await chat.say(`${trigger}: What do I know about tea?`);
  await expect(chat.stop).toBeHidden();

  const check = async () => {
    const line = page.getByTestId('tool-activity').filter({ hasText: 'Not saved' });
    await expect(line).toHaveText("Not saved (you didn't ask to save)");
    const why = page.getByTestId('activity-why');
    await expect(why).toBeHidden();
    await line.click();
    await expect(why).toBeVisible();
    await expect(why).toHaveText(/you didn't ask to save anything, so nothing was saved/);
  };
  await check();
  await page.reload();
  await expect(chat.assistantMessages.last()).toBeVisible();
  await check();
});
