import type { Clock, Logger, TimerHandle } from '../../ports/index.ts';
import { KubeCallError } from './errors.ts';
import type { KubeClient } from './kube-client.ts';
import { removedByUpdate } from './raw-object.ts';
import type { CacheChange, ResourceCache } from './resource-cache.ts';
import { credentialsKeyOf, SECRET_FINALIZER, secretClaimPatch } from './secret-claim.ts';
import { errorMessage } from '../../api/index.ts';

// Keeps BMO's claim (label, finalizer) on every BMC Secret a BareMetalHost names, and lifts the
// finalizer once no host names it, from the node's caches. Every node runs one: each patch
// carries the resourceVersion it was computed from, so a node with a stale cache gets a 409 and
// the next cache event brings it up to date; the result is the same whoever writes first.

/** Changes are gathered this long before the Secrets they touch are looked at: one pass per burst. */
const SETTLE_MS = 50;
/** A Secret whose patch failed for another reason (API server down, 403) is looked at again after this. */
const RETRY_MS = 10_000;

export interface SecretClaimer {
  close(): void;
}

export function startSecretClaimer(o: { hosts: ResourceCache; secrets: ResourceCache; client: KubeClient; clock: Clock; log: Logger }): SecretClaimer {
  // Secret key → the hosts naming it (kept from host changes, not recounted per Secret).
  const users = new Map<string, Set<string>>();
  const dirty = new Set<string>();
  let timer: TimerHandle | null = null;
  let running = false;
  let closed = false;

  const use = (secret: string | null, host: string, add: boolean): void => {
    if (secret === null) return;
    const set = users.get(secret) ?? new Set<string>();
    if (add) set.add(host);
    else set.delete(host);
    if (set.size === 0) users.delete(secret);
    else users.set(secret, set);
    dirty.add(secret);
  };

  const schedule = (ms = SETTLE_MS): void => {
    if (closed || timer !== null) return;
    timer = o.clock.setTimeout(() => {
      timer = null;
      void pass();
    }, ms);
  };

  const pass = async (): Promise<void> => {
    if (running || closed) return;
    running = true;
    const failed: string[] = [];
    try {
      while (dirty.size > 0 && !closed) {
        const key = dirty.values().next().value as string;
        dirty.delete(key);
        const secret = o.secrets.get(key);
        if (!secret) continue;
        const patch = secretClaimPatch(secret, users.get(key)?.size ?? 0);
        if (!patch) continue;
        const [namespace = '', name = ''] = key.split('/');
        try {
          const written = await o.client.patchSecret(namespace, name, patch);
          // Our finalizer was the last one of a Secret being deleted: it is gone, whenever the watch says so.
          if (removedByUpdate(written)) o.secrets.removed(key, written.metadata.resourceVersion);
          else o.secrets.written(written);
        } catch (error) {
          // A conflict or a Secret gone: the cache event on its way brings the key back.
          if (error instanceof KubeCallError && (error.conflict || error.notFound)) continue;
          // The message names the call and the status, never the Secret's data.
          o.log.warn({ secret: key, finalizer: SECRET_FINALIZER, err: errorMessage(error) }, 'could not update the claim on a BMC Secret; trying again later');
          failed.push(key);
        }
      }
    } finally {
      running = false;
    }
    if (failed.length > 0) {
      for (const key of failed) dirty.add(key);
      schedule(RETRY_MS);
    } else if (dirty.size > 0) schedule();
  };

  const onHost = (change: CacheChange): void => {
    const before = change.prev ? credentialsKeyOf(change.prev) : null;
    const after = change.type === 'upsert' ? credentialsKeyOf(change.next) : null;
    if (before === after && change.type === 'upsert') return;
    use(before, change.key, false);
    use(after, change.key, true);
    schedule();
  };
  const onSecret = (change: CacheChange): void => {
    if (change.type === 'deleted') return;
    dirty.add(change.key);
    schedule();
  };

  const unsubscribe = [o.hosts.subscribe(onHost), o.secrets.subscribe(onSecret)];
  for (const host of o.hosts.values()) use(credentialsKeyOf(host), `${host.metadata.namespace ?? 'default'}/${host.metadata.name}`, true);
  // Secrets a host of ours let go while this node was down still carry the finalizer.
  for (const secret of o.secrets.values()) if (secret.metadata.finalizers?.includes(SECRET_FINALIZER)) dirty.add(`${secret.metadata.namespace ?? 'default'}/${secret.metadata.name}`);
  schedule();

  return {
    close() {
      closed = true;
      if (timer !== null) o.clock.clearTimeout(timer);
      for (const off of unsubscribe) off();
    },
  };
}
