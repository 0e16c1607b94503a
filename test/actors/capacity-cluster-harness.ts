// Shared set-up of the cluster capacity tests: a memory bus and KV, a manual clock for every TTL
// and renew timer, brokers behind hand-driven leadership, proxies, holders using the real
// SlotLease, and a watch on KV that checks the limit on every version of every pool record.
import { createMemoryBus } from '../../src/bus/index.ts';
import type { MemoryBus } from '../../src/bus/index.ts';
import { decode } from '../../src/bus/index.ts';
import { SlotLease, type CapacityMsg, type SlotNotice } from '../../src/actors/capacity/index.ts';
import {
  createManualLeadership, inUse, isLive, poolKey, PoolRecord, spawnCapacityProxy, startClusterBroker,
  type ClusterBroker, type ManualLeadership,
} from '../../src/actors/capacity/cluster/index.ts';
import { createManualClock, startSystem, type ActorRef, type ActorSystem, type ManualClock } from '../../src/actors/runtime/index.ts';
import type { KvBucket } from '../../src/ports/index.ts';
import { unpack } from 'msgpackr';
import { waitFor } from '../support/wait.ts';

export const POOL = 'ironic:http://127.0.0.1:6385';

export interface Holder {
  readonly key: string;
  readonly heard: SlotNotice[];
  readonly lease: SlotLease;
  /** exempt: a virtual-media host, listed but not counted against the limit. */
  acquire(options?: { exempt?: boolean }): void;
  release(): void;
  /** From the last notice: what the holder believes. */
  readonly state: 'idle' | 'granted' | 'queued' | 'lost';
  readonly grantId: string | null;
}

/**
 * A node's link to the broker that can be cut (a paused process, a partition): while closed, the
 * node's requests wait, unsent; open() sends them, in the order given.
 */
export class Gate {
  closed = false;
  readonly waiting: Array<{ path: string; send: () => void }> = [];
  open(order: (n: number) => number[] = (n) => [...Array(n).keys()]): void {
    this.closed = false;
    const waiting = this.waiting.splice(0);
    for (const i of order(waiting.length)) waiting[i]!.send();
  }
}

export interface Harness {
  readonly clock: ManualClock;
  readonly system: ActorSystem;
  readonly bus: MemoryBus;
  readonly kv: KvBucket;
  readonly ttlMs: number;
  readonly limit: number;
  /** Every record version that broke the limit, with why. */
  readonly violations: string[];
  /** Every version of the pool record written, in order. */
  readonly versions: PoolRecord[];
  broker(name: string): { broker: ClusterBroker; leadership: ManualLeadership };
  /**
   * localBroker: the node's own broker, which then answers the proxy in process while it serves.
   * holdReplies: requests of these types reach the broker at once, but their replies wait in
   * `held` until deliverHeld() (a reply late on the wire).
   */
  proxy(node: string, options?: { localBroker?: ClusterBroker; holdReplies?: ReadonlySet<string>; gate?: Gate }): ActorRef<CapacityMsg>;
  /** Replies held back, oldest first. */
  readonly held: Array<{ node: string; type: string }>;
  /** Lets every held reply through, in order. */
  deliverHeld(): void;
  /** Requests each node's proxy sent over the bus (not counting those its own broker answered). */
  readonly busRequests: Map<string, number>;
  holder(proxy: ActorRef<CapacityMsg>, key: string): Holder;
  /** Wait until no actor has work and no proxy has a call on its way. */
  settle(): Promise<void>;
  /** Move the clock in small steps, settling after each, as time would pass. */
  advance(ms: number): Promise<void>;
  record(): Promise<PoolRecord | null>;
  stop(): void;
}

export async function harness(options: { limit: number; ttlMs?: number }): Promise<Harness> {
  const ttlMs = options.ttlMs ?? 30_000;
  const clock = createManualClock(1_000_000);
  const system = startSystem({ name: 'capacity-cluster-test', onError: (f) => violations.push(`actor failure ${f.path}: ${f.message}`) });
  const bus = createMemoryBus();
  const kv = bus.kv.bucket('capacity');
  const violations: string[] = [];
  const versions: PoolRecord[] = [];
  const stopWatch = await kv.watch({
    key: 'pool.>',
    onEvent: (e) => {
      if (e.op !== 'put') return;
      const d = decode('kv', e.value, PoolRecord);
      if (!d.ok) {
        violations.push(`unreadable record: ${d.error.message}`);
        return;
      }
      versions.push(d.value);
      const used = inUse(d.value, clock.now());
      if (d.value.limit !== 0 && used > d.value.limit) violations.push(`revision ${e.revision}: ${used} in use over limit ${d.value.limit}`);
      const holders = new Set(d.value.grants.map((g) => g.holder));
      if (holders.size !== d.value.grants.length) violations.push(`revision ${e.revision}: a holder twice`);
    },
  });
  const proxies: string[] = [];
  const busRequests = new Map<string, number>();
  const held: Array<{ node: string; type: string; path: string; deliver: () => void }> = [];
  const brokers: ClusterBroker[] = [];
  const gates: Gate[] = [];

  const idle = (): boolean => {
    for (const a of system.registry.list()) {
      if (a.mailboxDepth > 0 || a.busy) return false;
      // A held reply is a call on its way on purpose: the cluster is otherwise quiet.
      const holding = held.filter((x) => x.path === a.path).length
        + gates.reduce((n, g) => n + g.waiting.filter((x) => x.path === a.path).length, 0);
      if (proxies.includes(a.path) && (a.summary?.inflight as number) > holding) return false;
    }
    return true;
  };

  const h: Harness = {
    clock, system, bus, kv, ttlMs, limit: options.limit, violations, versions, busRequests, held,
    deliverHeld() {
      for (const x of held.splice(0)) x.deliver();
    },
    broker(name) {
      const leadership = createManualLeadership();
      const broker = startClusterBroker(system, {
        transport: bus.connect(name), kv, leadership, defaultLimit: options.limit, ttlMs, clock, name, requestTimeoutMs: 10_000,
      });
      brokers.push(broker);
      return { broker, leadership };
    },
    proxy(node, opts = {}) {
      const transport = bus.connect(node);
      const request = transport.request.bind(transport);
      let path = '';
      transport.request = (subject, data, o) => {
        busRequests.set(node, (busRequests.get(node) ?? 0) + 1);
        const type = (unpack(data) as { type?: unknown }).type;
        const gate = opts.gate;
        const sent = gate?.closed
          ? new Promise<Uint8Array>((resolve, reject) => gate.waiting.push({ path, send: () => request(subject, data, o).then(resolve, reject) }))
          : request(subject, data, o);
        if (typeof type !== 'string' || !opts.holdReplies?.has(type)) return sent;
        return sent.then((reply) => new Promise((resolve) => held.push({ node, type, path, deliver: () => resolve(reply) })));
      };
      if (opts.gate) gates.push(opts.gate);
      const local = opts.localBroker;
      const ref = spawnCapacityProxy(system, {
        transport, node, ttlMs, clock, name: `proxy-${node}`, requestTimeoutMs: 2_000, patienceMs: 2_000,
        ...(local ? { localBroker: (req) => local.request(req) } : {}),
      });
      path = ref.path;
      proxies.push(ref.path);
      return ref;
    },
    holder(proxy, key) {
      const heard: SlotNotice[] = [];
      const lease: SlotLease = new SlotLease(proxy, key, clock, ttlMs, () => lease.renew());
      let released = true;
      return {
        key, heard, lease,
        acquire: ({ exempt = false } = {}) => {
          released = false;
          lease.request(POOL, exempt ? 'inspecting' : 'provisioning', exempt, (n) => heard.push(n));
        },
        release: () => {
          released = true;
          lease.release();
        },
        get state() {
          const last = heard.at(-1);
          if (released || !last) return 'idle';
          return last.type === 'slotGranted' ? 'granted' : last.type === 'slotQueued' ? 'queued' : 'lost';
        },
        get grantId() {
          const last = heard.at(-1);
          return !released && last?.type === 'slotGranted' ? last.grantId : null;
        },
      };
    },
    async settle() {
      // Quiet on three polls in a row: a push published in the last turn has been delivered by then.
      let quiet = 0;
      await waitFor(() => {
        quiet = idle() ? quiet + 1 : 0;
        return quiet >= 3;
      }, 10_000, 'the cluster to settle');
    },
    async advance(ms) {
      const step = Math.max(1, Math.floor(ttlMs / 12));
      for (let done = 0; done < ms; done += step) {
        clock.advance(Math.min(step, ms - done));
        await h.settle();
      }
    },
    async record() {
      const e = await kv.get(poolKey(POOL));
      if (!e) return null;
      const d = decode('kv', e.value, PoolRecord);
      if (!d.ok) throw d.error;
      return d.value;
    },
    stop() {
      stopWatch();
      for (const b of brokers) b.stop();
      system.stop();
    },
  };
  return h;
}

/** Holders that believe they hold a slot must each have a live grant with that id in KV. */
export function believersWithoutGrant(record: PoolRecord | null, holders: readonly Holder[], now: number): string[] {
  const live = new Map((record?.grants ?? []).filter((g) => isLive(g, now)).map((g) => [g.holder, g.grantId]));
  return holders.filter((x) => x.state === 'granted' && live.get(x.key) !== x.grantId).map((x) => x.key);
}
