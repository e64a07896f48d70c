// The real-model tier (tag @real-model): the Chat page with the real local
// model (llama-server and Qwen2.5-Coder-0.5B-Instruct) instead of the
// stand-in. scripts/test.sh starts the model after the build and runs this
// with IMPRINT_REAL_MODEL_URL set; the stand-in run leaves it out
// (--grep-invert @real-model). Checks structure, never wording.
import { test, expect } from './fixtures';

const modelURL = process.env.IMPRINT_REAL_MODEL_URL;
test.skip(!modelURL, 'needs the real local model: scripts/test.sh starts it and sets IMPRINT_REAL_MODEL_URL');
test.use({
  useStandInModel: false,
  imprintEnv: {
    IMPRINT_CHAT_PROVIDER: 'local',
    IMPRINT_CHAT_BASE_URL: modelURL ?? '',
    IMPRINT_MODEL_IDLE_TIMEOUT_S: '300',
    // A second question (the model's own after Imprint's, say) is left
    // unanswered: it times out soon and the reply still finishes.
    IMPRINT_ANSWER_TIMEOUT_S: '30',
  },
});

// A small model on two shared cores: minutes, not seconds.
const MODEL_TIMEOUT = 240_000;

test('a real model asks through the question card and the reply finishes after the answer @real-model', async ({ chat }) => {
  test.setTimeout(2 * MODEL_TIMEOUT + 60_000);
  await chat.startNewChat();
  await chat.say('Remind me about the dentist.');

  const card = chat.questionCard.first();
  await expect(card).toHaveAttribute('data-state', 'waiting', { timeout: MODEL_TIMEOUT });
  await expect(card.getByTestId('question-text')).not.toHaveText('');
  const ownAnswer = card.getByTestId('own-answer');
  if (await ownAnswer.count()) {
    await ownAnswer.fill('tomorrow at 10');
    await ownAnswer.press('Enter');
  } else {
    await card.getByRole('button').first().click();
  }
  await expect(card).toHaveAttribute('data-state', 'answered');
  // The same reply goes on to its answer.
  await expect(chat.stop).toBeHidden({ timeout: MODEL_TIMEOUT });
  await expect(chat.assistantMessages.last()).not.toHaveText('');
});
