#!/usr/bin/env node
// The CLI ships as TypeScript run through tsx, so there is no build step to forget after a clone.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
