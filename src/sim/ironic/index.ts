// A real Ironic on this machine (Debian's 21.4), started as a private process: for tests, the
// benches, `npm run ironic:start` and `metalfleet demo --ironic` without a URL.
export { ironicInstalled, startIronic } from './local-ironic.ts';
export { freePort } from './ports.ts';
export type { FakeDelayKind, IronicServer, StartIronicOptions } from './options.ts';
