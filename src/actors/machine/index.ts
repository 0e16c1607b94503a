// The generic machine actor: every kind runs on it
// through a MachineKind, its pure MachineLogic plus an adapter for what only the kind knows.
export { machineBehavior } from './machine-actor.ts';
export type { MachineActorDeps, MachineBehavior } from './machine-actor.ts';
export type { SlotDeps } from './machine-run.ts';
export type { ActorEffect, KindEffect, Lane, MachineAdapter, MachineIO, MachineKind, Observation } from './kind.ts';
export type { Answer, ControlMsg, MachineMsg, Tick } from './messages.ts';
export { TICK } from './messages.ts';
export { STATUS_WRITE_RETRY, StatusWriter, statusDiffers } from './status-writer.ts';
export type { StatusWriterTarget } from './status-writer.ts';
export { MachineChanges, sameView } from './changes.ts';
export type { ChangeListener, ChangeSink, MachineChange } from './changes.ts';
