#!/usr/bin/env -S node --max-semi-space-size=32
// A controller makes many small short-lived objects per host step; with V8's default young
// generation a scavenge every few hundred ms lands on a burst of slot hand-offs and stretches
// them by milliseconds (npm run bench -- capacity: p99 4-7 ms default, 1-2.5 ms with 32 MB).
// V8 reads it only at start, hence the shebang (and the npm scripts).
//
// The command runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci`
// runs through `prepare`). METALFLEET_FROM_SOURCE=1 runs the TypeScript sources through tsx, a
// dev dependency. The tests set it to `auto`: dist/ when it was built after every file of src/
// was last changed (as under `npm test`, which builds first), else the sources, so a test always
// runs the code as it is in the tree, and spawns the CLI at half the CPU when it can.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import module from 'node:module';

// Node 22.1+ keeps compiled code between starts; Node 20 has no such cache and skips this.
if (typeof module.enableCompileCache === 'function') module.enableCompileCache();

const main = new URL('../dist/cli/main.js', import.meta.url);

/** The newest change of any file under `dir`, in ms since the epoch. */
function newestChange(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function distIsCurrent() {
  if (!existsSync(main)) return false;
  return statSync(main).mtimeMs >= newestChange(fileURLToPath(new URL('../src', import.meta.url)));
}

const fromSource = process.env.METALFLEET_FROM_SOURCE;
if (fromSource === '1' || (fromSource === 'auto' && !distIsCurrent())) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  if (!existsSync(main)) {
    process.stderr.write('metalfleet: dist/ is missing; run `npm run build` (npm ci runs it), or set METALFLEET_FROM_SOURCE=1 in a clone with dev dependencies\n');
    process.exit(1);
  }
  await import(main.href);
}
