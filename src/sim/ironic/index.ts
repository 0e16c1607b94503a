// A real Ironic on this machine (Debian's 21.4), started as a private process: for tests, the
// benches, `npm run ironic:start` and `metalfleet demo --ironic` without a URL.
export { ironicInstalled, startIronic } from './local-ironic.ts';
export { freePort } from './ports.ts';
export { guardAgainstOrphans } from './orphan-guard.ts';
export type { OrphanGuard } from './orphan-guard.ts';
export { sushyOverlay, withSushyOverlay, SYSTEM_PYTHON } from './sushy-overlay.ts';
export type { FakeDelayKind, IronicServer, StartIronicOptions } from './options.ts';
export { ironicConfig } from './config.ts';
export { ironicFeatures } from './features.ts';
export { installedIronicRelease, parseIronicRelease, IRONIC_21_4 } from './version.ts';
export type { IronicFeatures } from './features.ts';
export type { IronicRelease } from './version.ts';
