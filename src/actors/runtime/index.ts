// Typed actors over nact 7.6.2: branded refs, tell/ask that never crash the process, our own
// supervision with backoff, bounded mailboxes, a registry for introspection and a drain.
export { startSystem } from './system.ts';
export type { ActorSystem, ActorFailure, FailurePhase, StartOptions } from './system.ts';
export { spawn } from './spawn.ts';
export { tell, tellExpress, tellFirst, tellNextIteration, tellUrgent } from './tell.ts';
export { ask } from './ask.ts';
export { stop } from './stop.ts';
export { lookup, children, isAlive } from './lookup.ts';
export { drainActor } from './drain.ts';
export { messagesHandled } from './receive.ts';
export type { ActorRef, AnyActorRef, Reply, TellOutcome } from './ref.ts';
export type { ActorContext, Behavior } from './behavior.ts';
export { defaultMailbox, defaultSupervision } from './options.ts';
export type { MailboxOptions, SupervisionOptions, BackoffOptions, SpawnOptions } from './options.ts';
export type { ActorRegistry, ActorStats, ListOptions } from './registry.ts';
export type { DrainResult } from './drain.ts';
export { systemClock } from './clock.ts';
export type { Clock, TimerHandle } from './clock.ts';
export { createManualClock } from './manual-clock.ts';
export type { ManualClock } from './manual-clock.ts';
export { ActorError, AskTimeout, ActorStopped, MailboxFull, SpawnFailed, BehaviorError } from './errors.ts';
