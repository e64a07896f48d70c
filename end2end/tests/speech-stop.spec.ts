// @speech: a spoken "stop" stops the reply being written (real server and
// recogniser; fails if it cannot listen).
import { test, uniqueTrigger } from './fixtures';
import { spokenWav, stopBySpeech } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(spokenWav('stop')) });

test.describe('Echo hears "stop"', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should stop the reply when it hears "stop"', async ({ page, standin }) => {
    await stopBySpeech(page, standin!, uniqueTrigger('speech-stop'));
  });
});
