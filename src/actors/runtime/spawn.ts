import type { AnyBehavior, Behavior } from './behavior.ts';
import { ActorCell } from './cell.ts';
import { ActorStopped, SpawnFailed } from './errors.ts';
import { send, spawnNact } from './nact-bridge.ts';
import { resolveMailbox, resolveSupervision } from './options.ts';
import type { SpawnOptions } from './options.ts';
import { RESTART, runMessage } from './receive.ts';
import type { ActorRef, AnyActorRef } from './ref.ts';
import { reinit } from './supervision.ts';
import { RuntimeSystem } from './system.ts';
import type { ActorSystem } from './system.ts';

// Paths are '/'-joined names, so a name holds no '/' (and no whitespace, for the CLI).
const VALID_NAME = /^[^\s/]+$/;

/**
 * Starts an actor under the system or under another actor; init runs before spawn returns.
 * Throws SpawnFailed (bad or taken name) or ActorStopped (parent gone). A throwing init is a
 * crash like any other: the actor restarts after backoff, and messages told meanwhile wait.
 */
export function spawn<S, M>(
  parent: ActorSystem | AnyActorRef,
  name: string,
  behavior: Behavior<S, M>,
  opts: SpawnOptions = {},
): ActorRef<M> {
  const parentCell = parent instanceof ActorCell ? parent : null;
  const system = parentCell === null ? parent : parentCell.system;
  if (!(system instanceof RuntimeSystem)) throw new TypeError('spawn: parent is neither an ActorSystem from startSystem nor an actor ref');
  const path = `${parentCell === null ? '' : parentCell.path}/${name}`;
  if (parentCell === null ? system.stopped : parentCell.stopped) throw new ActorStopped(parentCell?.path ?? system.id);
  if (!VALID_NAME.test(name)) throw new SpawnFailed(path, 'a name is one or more characters without "/" or whitespace');
  if (system.registry.has(path)) throw new SpawnFailed(path, 'an actor with this path is running; stop it first or pick another name');

  const mailbox = resolveMailbox(opts.mailbox);
  const supervision = resolveSupervision(opts.supervision);
  const cell = new ActorCell(system, parentCell, name, path, behavior as unknown as AnyBehavior, mailbox, supervision, system.clock.now());
  // Every nact actor is top-level under a numeric name; the tree lives in our cells. Nesting in
  // nact would copy the parent's children Map on every message (its createContext does).
  const nactRef = spawnNact(system.nactRef, system.nextNactName(), runMessage, cell);
  cell.nactRef = nactRef;
  cell.priority = opts.priority === 'system';
  system.registry.add(cell);
  (parentCell === null ? system.roots : (parentCell.children ??= new Map())).set(name, cell);
  // A failed init leaves a restart pending; RESTART makes nact wait for it before any message.
  if (reinit(cell) !== cell) send(nactRef, RESTART);
  return cell as unknown as ActorRef<M>;
}
