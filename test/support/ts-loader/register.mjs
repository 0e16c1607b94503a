// ava's test processes load the TypeScript sources through these hooks instead of tsx's: the
// same esbuild transform, but only a load hook over Node's own resolver and a cache of the
// output on disk. tsx's resolve and load hooks cost a test process 0.6 s of CPU for the node's
// ~750 modules (1.5 s against 0.9 s), and npm test starts ~700 test processes on 2 cores.
// Scripts, benches and the CLI from source still run under tsx.
import { register } from 'node:module';

// Stack traces name .ts lines (the transform writes inline source maps).
process.setSourceMapsEnabled(true);
register('./hooks.mjs', import.meta.url);
