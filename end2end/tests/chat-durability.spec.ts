import { test as base, expect, uniqueTrigger } from './fixtures';
import { startRestartable, type RestartableImprint } from './fixtures/restartable';

// These tests kill their own server (SIGKILL) and start it again on the
// same data directory and port; the page is that server's.
const test = base.extend<{ restartable: RestartableImprint }>({
  restartable: async ({ standin }, use) => {
    const server = await startRestartable({
      IMPRINT_CHAT_PROVIDER: 'openai',
      IMPRINT_CHAT_BASE_URL: standin!.baseURL,
      IMPRINT_CHAT_MODEL: 'standin',
    });
    try {
      await use(server);
    } finally {
      await server.dispose();
    }
  },
  baseURL: async ({ restartable }, use) => {
    await use(restartable.baseURL);
  },
});

// The page loses its server for a moment on purpose: the browser logs the
// failed reconnections.
test.use({ allowConsoleErrors: true });

test('should keep a waiting card across a server restart and finish the reply when it is answered', async ({
  chat,
  standin,
  restartable,
}) => {
  const trigger = uniqueTrigger('restart-card');
  await standin!.script({
    trigger,
    turns: [
      { calls: [{ name: 'ask_user', arguments: { question: 'Which project?', options: ['Imprint', 'Billing'] } }] },
      { chunks: ['Billing is due on Friday.'] },
    ],
  });
  await chat.startNewChat();
  await chat.say(`what is due ${trigger}`);
  await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');

  await restartable.kill();
  await restartable.start();
  // A fresh load shows what the server restored, not what the page kept.
  await chat.page.reload();
  await expect(chat.questionCard).toHaveAttribute('data-state', 'waiting');
  await expect(chat.questionCard.getByTestId('question-text')).toHaveText('Which project?');
  await expect(chat.questionCard).toHaveCount(1);
  await chat.option('Billing').click();

  await expect(chat.questionCard).toHaveAttribute('data-state', 'answered');
  await expect(chat.assistantMessages.last()).toContainText('Billing is due on Friday.');
  const requests = await standin!.requests();
  const last = requests.filter((r) => JSON.stringify(r).includes(trigger)).at(-1);
  expect(JSON.stringify(last)).toContain('The user answered: Billing');
});

test('should mark a reply interrupted by a restart and answer it again with Retry', async ({
  chat,
  standin,
  restartable,
}) => {
  const trigger = uniqueTrigger('restart-writing');
  await standin!.script({ trigger, once: true, turns: [{ chunks: ['Once upon a '], stall: true }] });
  await chat.startNewChat();
  await chat.say(`tell a story ${trigger}`);
  await expect(chat.streamingText).toContainText('Once upon a');

  await restartable.kill();
  await restartable.start();
  await chat.page.reload();
  const mark = chat.page.getByTestId('reply-ended');
  await expect(mark).toHaveAttribute('data-ended', 'interrupted');
  await expect(mark).toHaveText('Imprint stopped while writing this reply.');
  await expect(chat.assistantMessages.last()).toContainText('Once upon a');

  // The stand-in answers the same request differently from now on.
  const again = uniqueTrigger('retried');
  await standin!.script({ trigger, turns: [{ chunks: [`A story, ${again}.`] }] });
  await chat.page.getByTestId('retry').click();
  await expect(chat.assistantMessages.last()).toContainText(`A story, ${again}.`);
  await expect(chat.page.getByTestId('retry')).toHaveCount(0);
  await chat.page.reload();
  await expect(chat.assistantMessages.last()).toContainText(`A story, ${again}.`);
  await expect(chat.page.getByTestId('reply-ended')).toHaveAttribute('data-ended', 'interrupted');
});
