import { BMH_KIND } from '../../api/index.ts';
import type { Logger, ResourceStore } from '../../ports/index.ts';
import type { CapacityMsg, HolderPage } from '../capacity/index.ts';
import { releaseGone } from '../capacity/index.ts';
import type { ActorRef } from '../runtime/index.ts';
import { ask } from '../runtime/index.ts';

export interface GoneGrantDeps {
  readonly broker: ActorRef<CapacityMsg>;
  readonly store: ResourceStore;
  readonly log: Logger;
}

// A node taking shards over at start may ask before the broker serves (its election, its load):
// a page goes unanswered, so ask again a few times; past that the grants lapse at their TTL.
const PAGE_TIMEOUT_MS = 1_500;
const PAGE_TRIES = 8;

async function pageOf(broker: ActorRef<CapacityMsg>, after: string | undefined): Promise<HolderPage> {
  for (let tries = 1; ; tries++) {
    try {
      return await ask<CapacityMsg, HolderPage>(broker, (reply) => ({ type: 'holders', ...(after !== undefined ? { after } : {}), reply }), PAGE_TIMEOUT_MS);
    } catch (error) {
      if (tries >= PAGE_TRIES) throw error;
    }
  }
}

/**
 * Every holder the broker knows, page by page: the figures list only a pool's first 200 holders,
 * so a sweep reading them missed a gone host behind those (a fleet of thousands holds more).
 */
async function* holdersAt(broker: ActorRef<CapacityMsg>): AsyncGenerator<string> {
  let after: string | undefined;
  do {
    const page = await pageOf(broker, after);
    yield* page.holders;
    // A page that does not move on (a broker that ignores `after`) must not loop forever.
    after = page.next !== null && page.next !== after ? page.next : undefined;
  } while (after !== undefined);
}

// Hosts hold grants under their key; other kinds qualify theirs (`MaasMachine:ns/name`, see the
// machine kind's slotHolder), and a colon is in no Kubernetes name: a MaasMachine's grant is not a host's.
function isHostHolder(holder: string): boolean {
  return !holder.includes(':');
}

/**
 * A node that just took shards over settles the grants (and places in a queue) held in the name of
 * hosts of those shards that its listing did not find: deleted while their shard moved, so this
 * node never saw their spec and no actor of theirs will adopt or release them (issue 30.1). The
 * broker lists its holders by name (an acquire it has received and not yet served among them);
 * each candidate is read again from the store first (a host created since the listing has its own
 * actor and keeps what it asked for). Normally no candidate at all: a page of names per 2,000
 * holders per batch of acquired shards, answered from the broker's memory.
 */
export async function releaseGoneHolders(deps: GoneGrantDeps, present: ReadonlySet<string>, acquired: (key: string) => boolean): Promise<number> {
  const candidates = new Set<string>();
  for await (const holder of holdersAt(deps.broker)) if (isHostHolder(holder) && !present.has(holder) && acquired(holder)) candidates.add(holder);
  let released = 0;
  for (const key of candidates) {
    if ((await deps.store.get(BMH_KIND, key)) !== undefined) continue;
    releaseGone(deps.broker, key);
    released++;
  }
  if (released > 0) deps.log.info({ released }, 'released the capacity held for hosts deleted before this node took their shards');
  return released;
}
