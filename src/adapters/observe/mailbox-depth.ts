import type { ActorStats } from '../../actors/runtime/index.ts';

/** Messages queued per actor kind: per kind, not per actor, so the label's values stay few. */
export function mailboxDepthByKind(actors: readonly ActorStats[]): Map<string, number> {
  const depth = new Map<string, number>();
  for (const a of actors) depth.set(a.kind, (depth.get(a.kind) ?? 0) + a.mailboxDepth);
  return depth;
}
