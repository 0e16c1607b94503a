export { hostBehavior } from './host.ts';
export type { HostDeps, HostObserver } from './host.ts';
export { hostKind } from './host-kind.ts';
export type { HostMsg, HostObserved, HostSnapshot, Transition } from './messages.ts';
