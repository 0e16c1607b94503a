import type { ActorStats } from '../../actors/runtime/index.ts';

/** Steps and crashes of one host actor since the last look. */
export interface HostStepDelta {
  readonly namespace: string;
  readonly name: string;
  readonly steps: number;
  readonly failures: number;
}

export interface SeenActor {
  readonly processed: number;
  readonly restarts: number;
  /** Which actor the totals are of: a host deleted and applied again gets a new one at the same path. */
  readonly startedAt: number;
}

// BMO's reconcile counters in metalfleet terms: one reconcile is one message a host actor took
// from its mailbox and stepped; a reconcile error is a host actor's crash (its supervisor
// restarts it). The registry only has running totals per actor, so each look counts what
// grew since the previous look; a path seen for the first time, or held by another actor than
// the one last seen there (started at another time), counts everything it has.
export function hostStepDeltas(previous: ReadonlyMap<string, SeenActor>, actors: readonly ActorStats[]): { deltas: HostStepDelta[]; seen: Map<string, SeenActor>; paths: Map<string, string> } {
  const deltas: HostStepDelta[] = [];
  const seen = new Map<string, SeenActor>();
  // Host key (namespace/name) → actor path: where to look a host up when it goes.
  const paths = new Map<string, string>();
  for (const a of actors) {
    if (a.kind !== 'host') continue;
    const host = hostOfActorName(a.name);
    if (!host) continue;
    const last = previous.get(a.path);
    const before = last && last.startedAt === a.startedAt ? last : { processed: 0, restarts: 0 };
    const steps = Math.max(0, a.processed - before.processed);
    const failures = Math.max(0, a.restarts - before.restarts);
    seen.set(a.path, { processed: Math.max(a.processed, before.processed), restarts: Math.max(a.restarts, before.restarts), startedAt: a.startedAt });
    paths.set(`${host.namespace}/${host.name}`, a.path);
    if (steps > 0 || failures > 0) deltas.push({ ...host, steps, failures });
  }
  return { deltas, seen, paths };
}

// A shard names its host actors `namespace~name` (src/actors/shard): '~' is in neither.
function hostOfActorName(actorName: string): { namespace: string; name: string } | null {
  const at = actorName.indexOf('~');
  if (at <= 0) return null;
  return { namespace: actorName.slice(0, at), name: actorName.slice(at + 1) };
}
