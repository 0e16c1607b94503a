import type { ActorSystem } from '../actors/runtime/index.ts';

/**
 * Starts what the node's stores need inside its actor system (the Kubernetes adapter's informers)
 * before anything reads them; a store that cannot start stops the system it was given.
 */
export async function attachStores(system: ActorSystem, attach: ((system: ActorSystem) => Promise<void>) | undefined): Promise<void> {
  if (!attach) return;
  try {
    await attach(system);
  } catch (err) {
    system.stop();
    throw err;
  }
}
