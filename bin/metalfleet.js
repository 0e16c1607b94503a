#!/usr/bin/env -S node --max-semi-space-size=32
// A controller makes many small short-lived objects per host step; with V8's default young
// generation a scavenge every few hundred ms lands on a burst of slot hand-offs and stretches
// them by milliseconds (npm run bench -- capacity: p99 4-7 ms default, 1-2.5 ms with 32 MB).
// V8 reads it only at start, hence the shebang (and the npm scripts).
// The CLI ships as TypeScript run through tsx, so there is no build step to forget after a clone.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
