export { hostBehavior } from './host.ts';
export type { HostDeps, HostObserver, SecretWatch } from './host.ts';
export { hostKind } from './host-kind.ts';
export type { HostMsg, HostObserved, HostSnapshot, Transition } from './messages.ts';
