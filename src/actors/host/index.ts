export { hostBehavior } from './host.ts';
export type { HostDeps, HostObserver } from './host.ts';
export type { HostMsg, HostSnapshot, Transition } from './messages.ts';
