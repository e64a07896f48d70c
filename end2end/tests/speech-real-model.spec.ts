// The real-model tier's spoken case (tags @real-model, run by scripts/test.sh
// after the model starts): Chromium's fake microphone says "Remind me to water
// the garden", waits, then says "tomorrow morning". Imprint's recogniser hears
// both; the request's missing time is asked, the spoken time answers it, and
// the reminder is set, with the real local model as the chat model. Checks
// the path and the stored reminder. Not "call Anna": tiny.en hears espeak-ng's
// "call Anna" as "Carolina" at a confidence near the noise floor (0.58), and
// Echo then rightly ignores it; "water the garden" is heard whole at 0.78.
import { test, expect } from './fixtures';
import { spokenWavs, watchRecogniser } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

const modelURL = process.env.IMPRINT_REAL_MODEL_URL;
test.skip(!modelURL, 'needs the real local model: scripts/test.sh starts it and sets IMPRINT_REAL_MODEL_URL');
// The gap leaves the recogniser and the question time to come before the
// answer is said (a busy machine takes about 3 s to hear an utterance).
// "Tomorrow morning", not "tomorrow at nine": tiny.en hears espeak-ng's
// "at nine" as "I'll die" or "18" (docs/speech.md), and this case checks the
// path, not the recogniser's accuracy.
test.use({
  // "Tomorrow morning" is a time of its own, not one of the choices: Echo
  // asks "Did you say Tomorrow morning?", and the "Yes." 4 s later (well
  // within the 10 s a confirm waits) takes it.
  launchOptions: withFakeMicrophone(
    spokenWavs(['Remind me to water the garden.', 'Tomorrow morning.', 'Yes.'], [10, 4]),
  ),
  useStandInModel: false,
  imprintEnv: {
    IMPRINT_CHAT_PROVIDER: 'local',
    IMPRINT_CHAT_BASE_URL: modelURL ?? '',
    IMPRINT_MODEL_IDLE_TIMEOUT_S: '300',
  },
});

test('a spoken reminder request and a spoken time set the reminder @real-model', async ({ page, request }) => {
  test.setTimeout(180_000);
  const ready = watchRecogniser(page);
  await page.goto('/voice');
  await expect(page.getByTestId('echo-recogniser')).toHaveValue('imprint');
  // Voice is read-only unless the user lets Echo write.
  await page.getByTestId('echo-writes').check();
  await page.getByTestId('mic').click();
  await ready();

  const card = page.getByTestId('question-card');
  await expect(card).toHaveAttribute('data-state', 'waiting', { timeout: 60_000 });
  await expect(card.getByTestId('question-text')).toContainText('What time');
  await expect(card).toHaveAttribute('data-state', 'answered', { timeout: 60_000 });
  await expect(page.getByTestId('echo-reply').first()).toContainText('Done: reminder set', { timeout: 60_000 });

  const reminders = (await (await request.get('/api/reminders')).json()) as {
    reminders: { text: string; due_at: string }[];
  };
  expect(reminders.reminders).toHaveLength(1);
  // Its words are what tiny.en heard ("Water to garden" in one CI run):
  // the recogniser's accuracy is eval_speech's to measure, not this path's.
  expect(reminders.reminders[0].text).not.toBe('');
  const due = new Date(reminders.reminders[0].due_at);
  const tomorrow = new Date();
  tomorrow.setDate(tomorrow.getDate() + 1);
  expect(due.toDateString()).toBe(tomorrow.toDateString());
  // "Morning" is 09:00.
  expect([due.getHours(), due.getMinutes()]).toEqual([9, 0]);
});
