import { ActorCell } from './cell.ts';
import type { ActorRef, AnyActorRef } from './ref.ts';
import { RuntimeSystem } from './system.ts';
import type { ActorSystem } from './system.ts';

/** The live actor at `path`. M is the caller's claim about what it accepts: nothing checks it. */
export function lookup<M = never>(system: ActorSystem, path: string): ActorRef<M> | undefined {
  if (!(system instanceof RuntimeSystem)) return undefined;
  return system.registry.cell(path) as unknown as ActorRef<M> | undefined;
}

/** Live direct children of an actor, or the top-level actors of a system. */
export function children(parent: ActorSystem | AnyActorRef): AnyActorRef[] {
  const map = parent instanceof ActorCell ? parent.children : parent instanceof RuntimeSystem ? parent.roots : null;
  return map === null ? [] : ([...map.values()] as unknown as AnyActorRef[]);
}

export function isAlive(ref: AnyActorRef): boolean {
  return ref instanceof ActorCell && !ref.stopped;
}
