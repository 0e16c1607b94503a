#!/usr/bin/env -S node --max-semi-space-size=32
// A controller makes many small short-lived objects per host step; with V8's default young
// generation a scavenge every few hundred ms lands on a burst of slot hand-offs and stretches
// them by milliseconds (npm run bench -- capacity: p99 4-7 ms default, 1-2.5 ms with 32 MB).
// V8 reads it only at start, hence the shebang (and the npm scripts).
//
// The command runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci`
// runs through `prepare`). METALFLEET_FROM_SOURCE=1 runs the TypeScript sources through tsx, a
// dev dependency: the tests set it so they exercise the code as it is in the tree.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';
import module from 'node:module';

// Node 22.1+ keeps compiled code between starts; Node 20 has no such cache and skips this.
if (typeof module.enableCompileCache === 'function') module.enableCompileCache();

if (process.env.METALFLEET_FROM_SOURCE === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  const main = new URL('../dist/cli/main.js', import.meta.url);
  if (!existsSync(main)) {
    process.stderr.write('metalfleet: dist/ is missing; run `npm run build` (npm ci runs it), or set METALFLEET_FROM_SOURCE=1 in a clone with dev dependencies\n');
    process.exit(1);
  }
  await import(main.href);
}
