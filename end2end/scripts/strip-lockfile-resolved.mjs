// Removes every `resolved` field from package-lock.json so that no package
// registry's host name is committed. npm ci still installs from the lockfile:
// it looks each package up by name and version in the configured registry and
// verifies it against the recorded `integrity` hash.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const lockPath = fileURLToPath(new URL('../package-lock.json', import.meta.url));
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

let removed = 0;
for (const entry of Object.values(lock.packages ?? {})) {
  if ('resolved' in entry) {
    delete entry.resolved;
    removed += 1;
  }
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);

const left = readFileSync(lockPath, 'utf8').match(/"resolved"|https?:\/\//g);
if (left) {
  console.error(`package-lock.json still names a URL (${left.length} occurrences)`);
  process.exit(1);
}
console.log(`package-lock.json: removed ${removed} resolved field(s); no URLs left`);
