// @speech: "Stop." in Piper's natural voice stops the reply being written
// (real server and recogniser; fails if it cannot listen or Piper is not
// set up).
import { test, uniqueTrigger } from './fixtures';
import { naturalWav, stopBySpeech } from './fixtures/audio';
import { withFakeMicrophone } from './fixtures/browser';

test.use({ launchOptions: withFakeMicrophone(naturalWav(['Stop.'], { kind: 'quiet' })) });

test.describe('Echo hears a natural "stop"', { tag: '@speech' }, () => {
  // Recognition on a CPU takes seconds.
  test.describe.configure({ timeout: 90_000 });
  test('should stop the reply when a natural voice says "stop"', async ({ page, standin }) => {
    await stopBySpeech(page, standin!, uniqueTrigger('natural-stop'));
  });
});
