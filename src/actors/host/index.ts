export { hostBehavior } from './host.ts';
export type { HostDeps, HostStatusObserver, SecretWatch } from './host.ts';
export { hostKind } from './host-kind.ts';
export type { HostMsg, HostObserved, HostSnapshot, Transition } from './messages.ts';
export { hostBinding } from './binding.ts';
export type { HostBindingDeps, HostRouter } from './binding.ts';
