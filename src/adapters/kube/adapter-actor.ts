import type { ActorRef, Behavior, Clock, Reply, TimerHandle } from '../../actors/runtime/index.ts';
import { tell } from '../../actors/runtime/index.ts';
import type { Logger } from '../../ports/index.ts';
import { backoffMs, INFORMER_BACKOFF } from './backoff.ts';
import { toKubeCallError } from './errors.ts';
import { permissionFor } from './kube-calls.ts';
import type { InformerFactory, InformerHandle } from './informer.ts';
import type { ResourceCache } from './resource-cache.ts';
import type { ResourceInfo, ResourceName } from './resources.ts';
import { qualifiedName, RESOURCES } from './resources.ts';

export type AdapterMsg =
  | { type: 'event'; resource: ResourceName; instance: number; verb: 'add' | 'update' | 'delete'; object: unknown }
  | { type: 'listed'; resource: ResourceName; instance: number; keys: readonly string[]; resourceVersion: string | undefined }
  | { type: 'connected'; resource: ResourceName; instance: number }
  | { type: 'failed'; resource: ResourceName; instance: number; error: unknown }
  | { type: 'started'; resource: ResourceName; instance: number; attempt: number }
  | { type: 'restart'; resource: ResourceName; attempt: number }
  | { type: 'status'; reply: Reply<InformerStatus[]> };

export interface InformerStatus {
  readonly resource: ResourceName;
  readonly phase: 'starting' | 'watching' | 'backoff' | 'stopped';
  /** Listed once at least: the cache holds the whole resource. */
  readonly synced: boolean;
  readonly errors: number;
  readonly restarts: number;
  readonly lastError: string | null;
  /** Since when (clock ms) the informer has failed without watching again; null while it watches. */
  readonly downSince: number | null;
}

export interface AdapterActorOptions {
  readonly resources: readonly ResourceName[];
  readonly caches: Readonly<Partial<Record<ResourceName, ResourceCache>>>;
  readonly informers: InformerFactory;
  readonly clock: Clock;
  readonly random: () => number;
  readonly log: Logger;
  /** Once every informer has listed. */
  readonly onSynced: () => void;
  /** Kept current by the actor for metrics (read-only outside). */
  readonly status: Map<ResourceName, InformerStatus>;
  /** An informer up this long without failing starts its next backoff from the beginning. */
  readonly healthyAfterMs?: number;
}

interface Entry {
  readonly resource: ResourceName;
  readonly informer: InformerHandle;
  readonly instance: number;
  phase: InformerStatus['phase'];
  attempt: number;
  failedThisAttempt: boolean;
  /** Failures since the informer was last healthy: the backoff exponent. */
  streak: number;
  since: number;
  synced: boolean;
  errors: number;
  restarts: number;
  lastError: string | null;
  downSince: number | null;
  timer: TimerHandle | null;
  connects: number[];
  /** When the informer last connected in this attempt, and whether an event came since. */
  lastConnect: number | null;
  eventSinceConnect: boolean;
  /** Watches in a row that ended within SHORT_WATCH_MS without an event. */
  shortWatches: number;
}

interface AdapterState {
  readonly self: ActorRef<AdapterMsg>;
  readonly entries: Map<ResourceName, Entry>;
  syncedAll: boolean;
}

// A watch that ends with an ERROR the informer ignores is re-opened at once, forever
// (reference/kube-api.md §3): that many connects within a second is a loop, not a watch.
const LOOP_CONNECTS = 20;
const LOOP_WINDOW_MS = 1_000;
// client-go's reflector fails a watch that ended within a second without an event ("very short
// watch") and backs off; the informer would re-open it at once, forever, below the loop guard's
// rate. As many in a row as the loop guard's connects, not one: a 410 ends a watch at once too,
// and its re-list should not wait.
const SHORT_WATCH_MS = 1_000;
const SHORT_WATCHES = LOOP_CONNECTS - 1;

let instances = 0;

/**
 * Owns the informers of the Kubernetes adapter. Informer callbacks arrive as messages and are
 * applied to the resource caches in order, so the stores' listeners see one ordered stream.
 * Informers that stop on an error are started again after a backoff (resuming from their last
 * resourceVersion, or listing again after 410); errors and restarts are counted for metrics.
 */
export function adapterBehavior(o: AdapterActorOptions): Behavior<AdapterState, AdapterMsg> {
  const healthyAfterMs = o.healthyAfterMs ?? 30_000;

  const publish = (e: Entry): void => {
    o.status.set(e.resource, { resource: e.resource, phase: e.phase, synced: e.synced, errors: e.errors, restarts: e.restarts, lastError: e.lastError, downSince: e.downSince });
  };

  return {
    kind: 'kube-adapter',
    init: (ctx) => {
      const entries = new Map<ResourceName, Entry>();
      for (const resource of o.resources) {
        // A restart of this actor makes new informers; callbacks of the old ones carry an old instance.
        const instance = ++instances;
        const informer = o.informers(RESOURCES[resource], {
          event: (verb, object) => tell(ctx.self, { type: 'event', resource, instance, verb, object }),
          listed: (keys, resourceVersion) => tell(ctx.self, { type: 'listed', resource, instance, keys, resourceVersion }),
          connected: () => tell(ctx.self, { type: 'connected', resource, instance }),
          failed: (error) => tell(ctx.self, { type: 'failed', resource, instance, error }),
        });
        const previous = o.status.get(resource);
        const entry: Entry = {
          resource, informer, instance, phase: 'starting', attempt: 0, failedThisAttempt: false, streak: 0, since: o.clock.now(),
          synced: previous?.synced ?? false, errors: previous?.errors ?? 0, restarts: previous?.restarts ?? 0, lastError: previous?.lastError ?? null,
          downSince: previous?.downSince ?? null, timer: null, connects: [], lastConnect: null, eventSinceConnect: false, shortWatches: 0,
        };
        entries.set(resource, entry);
        start(entry, ctx.self);
      }
      return { self: ctx.self, entries, syncedAll: false };
    },
    receive: (s, msg) => {
      if (msg.type === 'status') {
        msg.reply([...s.entries.values()].map((e) => o.status.get(e.resource)!));
        return s;
      }
      const e = s.entries.get(msg.resource);
      if (!e || e.phase === 'stopped') return s;
      switch (msg.type) {
        case 'event':
          if (msg.instance === e.instance) {
            e.eventSinceConnect = true;
            o.caches[msg.resource]?.observe(msg.verb, msg.object);
          }
          break;
        case 'listed':
          if (msg.instance === e.instance) o.caches[msg.resource]?.listed(msg.keys, msg.resourceVersion);
          break;
        case 'connected': {
          if (msg.instance !== e.instance || e.phase === 'backoff') break;
          const plural = RESOURCES[e.resource].plural;
          const reason = looping(e)
            ? `the ${plural} watch reconnected ${LOOP_CONNECTS} times within ${LOOP_WINDOW_MS} ms; backing off`
            : shortWatch(e) >= SHORT_WATCHES ? `the ${plural} watch ended within ${SHORT_WATCH_MS} ms without an event ${SHORT_WATCHES} times in a row; backing off` : null;
          if (reason !== null) {
            // Stopping aborts the request; the error that follows belongs to this failure.
            fail(e, reason);
            void e.informer.stop().catch(() => undefined);
          }
          break;
        }
        case 'failed':
          if (msg.instance === e.instance && e.phase !== 'backoff') fail(e, describe(msg.error, RESOURCES[e.resource]));
          break;
        case 'started':
          if (msg.instance === e.instance && msg.attempt === e.attempt && e.phase === 'starting' && !e.failedThisAttempt) {
            e.phase = 'watching';
            e.since = o.clock.now();
            e.downSince = null;
            if (!e.synced) o.log.info({ resource: RESOURCES[e.resource].plural }, 'informer synced');
            e.synced = true;
            publish(e);
            if (!s.syncedAll && [...s.entries.values()].every((x) => x.synced)) {
              s.syncedAll = true;
              o.onSynced();
            }
          }
          break;
        case 'restart':
          if (msg.attempt === e.attempt && e.phase === 'backoff') {
            e.timer = null;
            e.restarts += 1;
            start(e, s.self);
          }
          break;
      }
      return s;

      function fail(entry: Entry, reason: string): void {
        entry.errors += 1;
        entry.lastError = reason;
        entry.downSince ??= o.clock.now();
        entry.failedThisAttempt = true;
        // An informer that stayed up a while starts its backoff over.
        if (entry.phase === 'watching' && o.clock.now() - entry.since >= healthyAfterMs) entry.streak = 0;
        const delay = backoffMs(entry.streak, o.random(), INFORMER_BACKOFF);
        entry.streak += 1;
        entry.phase = 'backoff';
        const attempt = entry.attempt;
        entry.timer = o.clock.setTimeout(() => tell(s.self, { type: 'restart', resource: entry.resource, attempt }), delay);
        publish(entry);
        o.log.warn({ resource: RESOURCES[entry.resource].plural, errors: entry.errors, retryInMs: delay, err: reason }, 'informer stopped; restarting after backoff');
      }
    },
    onStop: (s) => {
      for (const e of s.entries.values()) {
        e.phase = 'stopped';
        if (e.timer !== null) o.clock.clearTimeout(e.timer);
        e.timer = null;
        publish(e);
        void e.informer.stop().catch(() => undefined);
      }
    },
    describe: (s) => Object.fromEntries([...s.entries.values()].map((e) => [e.resource, `${e.phase}${e.synced ? '' : ' (not synced)'} errors=${e.errors} restarts=${e.restarts}`])),
  };

  function start(e: Entry, self: ActorRef<AdapterMsg>): void {
    e.attempt += 1;
    e.phase = 'starting';
    e.failedThisAttempt = false;
    e.connects = [];
    e.lastConnect = null;
    e.eventSinceConnect = false;
    e.shortWatches = 0;
    publish(e);
    const attempt = e.attempt;
    e.informer.start().then(
      () => tell(self, { type: 'started', resource: e.resource, instance: e.instance, attempt }),
      (error: unknown) => tell(self, { type: 'failed', resource: e.resource, instance: e.instance, error }),
    );
  }

  /** Counts the watch that just ended (a connect ends the one before it); returns the streak. */
  function shortWatch(e: Entry): number {
    const now = o.clock.now();
    const short = e.lastConnect !== null && now - e.lastConnect < SHORT_WATCH_MS && !e.eventSinceConnect;
    e.shortWatches = short ? e.shortWatches + 1 : 0;
    e.lastConnect = now;
    e.eventSinceConnect = false;
    return e.shortWatches;
  }

  function looping(e: Entry): boolean {
    const now = o.clock.now();
    e.connects.push(now);
    while (e.connects.length > 0 && now - e.connects[0]! > LOOP_WINDOW_MS) e.connects.shift();
    return e.connects.length >= LOOP_CONNECTS;
  }
}

// A watch that failed says why in the words every other API call uses (TLS, refused, 401/403).
// A 404 on a custom resource's collection is the API server's plain-text "404 page not found"
// for a group, version or resource it does not serve (reference/kube-api.md §1): the CRD is
// missing, and "NotFound (HTTP 404)" alone does not say which or what to do.
// client-node's watch keeps no body of a refusal, so a 403 names the permission from here.
function describe(error: unknown, r: ResourceInfo): string {
  const failure = toKubeCallError(`watching ${r.plural}`, error, permissionFor(r, 'watch'));
  if (failure.status !== 404 || r.group === '') return failure.message;
  return `${failure.call}: the CustomResourceDefinition ${qualifiedName(r)} (${r.kind} ${r.apiVersion}) is not installed in the cluster (HTTP 404); ${installHint(r)}`;
}

function installHint(r: ResourceInfo): string {
  // Cluster API's own kinds come with Cluster API, not with metalfleet.
  if (r.group === 'cluster.x-k8s.io') return 'install Cluster API first (clusterctl init), or run the node without a MAAS';
  const file = `deploy/crds/${r.group}_${r.plural}.yaml`;
  const hosts = r.group === 'metal3.io' ? ', or run a MAAS-only node with --no-hosts' : '';
  return `install it with kubectl apply -f ${file} (or all of them: kubectl apply -f deploy/crds/)${hosts}`;
}
