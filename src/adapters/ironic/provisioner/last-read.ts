import type { Fence, HostData } from '../../../ports/index.ts';
import type { IronicClient, IronicNode } from '../client/index.ts';

// The node as a host's last call left it, handed to the host's next call when that one follows
// at once (issue 30, enroll). A call that ends its step (done) is followed within milliseconds by
// the next state's call: registering's last poll read the node manageable, then preparing, the
// firmware read and the first power read each read it again, three GETs a host for an answer
// already known (BMO reads it once a reconcile). Kept only when the call changed nothing at
// Ironic after its read (a PATCH answers the node as written, so that answer is kept), no older
// than one short poll (what a polling host acts on anyway), for the same owner (fence) and node,
// and used once.

/** A node as read (or written back) at `at`, on the clock LastRead was given. */
export interface NodeRead {
  readonly node: IronicNode;
  readonly at: number;
}

interface Kept extends NodeRead {
  readonly fence: string;
}

// Writes whose answer is not the node as it now is (a state change goes on in the conductor).
const STALING = ['createPort', 'deleteNode', 'setProvisionState', 'setPowerState', 'setTargetRaidConfig', 'setMaintenance', 'unsetMaintenance'] as const;

export class LastRead {
  private readonly byHost = new Map<string, Kept>();

  constructor(private readonly freshMs: number, readonly now: () => number = () => performance.now()) {}

  /** The node `host`'s last call ended with, if fresh and still this owner's; forgotten either way. */
  take(host: HostData): NodeRead | undefined {
    const kept = this.byHost.get(host.key);
    if (!kept) return undefined;
    this.byHost.delete(host.key);
    if (this.now() - kept.at > this.freshMs || kept.fence !== fenceText(host.fence)) return undefined;
    if (host.provisionerId && kept.node.uuid !== host.provisionerId) return undefined;
    return { node: kept.node, at: kept.at };
  }

  /**
   * Keeps `read` for `host`'s next call. Its age is the read's, not this call's: a chain of calls
   * each handing on the node it was handed never makes an old answer look new.
   */
  keep(host: HostData, read: NodeRead): void {
    const now = this.now();
    this.byHost.delete(host.key);
    // Oldest kept first (insertion order, near enough): the stale ones a host never came back for
    // go, so a fleet's worth of nodes is never held much past one poll (issue 29: a host's bytes count).
    for (const [key, k] of this.byHost) {
      if (now - k.at <= this.freshMs) break;
      this.byHost.delete(key);
    }
    if (now - read.at <= this.freshMs) this.byHost.set(host.key, { ...read, fence: fenceText(host.fence) });
  }

  /** How many nodes are held (tests). */
  get size(): number {
    return this.byHost.size;
  }
}

/**
 * `client`, watched for one call: `latest()` is the node last read or written back (GET, PATCH,
 * create), `known` until then, or null once a write left it behind Ironic's (a state change, a
 * port, a deletion).
 */
export function watchedClient(client: IronicClient, known: NodeRead | undefined, now: () => number): { client: IronicClient; latest(): NodeRead | null } {
  // The node the call starts from when it reads none itself.
  let latest: NodeRead | null = known ?? null;
  const seen = (node: IronicNode | null): IronicNode | null => {
    latest = node ? { node, at: now() } : null;
    return node;
  };
  const overrides: Partial<Record<keyof IronicClient, unknown>> = {
    getNode: (ref: string) => client.getNode(ref).then(seen),
    patchNode: (ref: string, ops: Parameters<IronicClient['patchNode']>[1]) => client.patchNode(ref, ops).then(seen),
    createNode: (body: Parameters<IronicClient['createNode']>[0]) => client.createNode(body).then(seen),
  };
  for (const name of STALING) {
    const write = client[name] as (...args: unknown[]) => Promise<unknown>;
    overrides[name] = (...args: unknown[]) => {
      latest = null;
      return write.apply(client, args).finally(() => {
        latest = null;
      });
    };
  }
  const watched = new Proxy(client, { get: (target, prop, receiver) => (prop in overrides ? overrides[prop as keyof IronicClient] : Reflect.get(target, prop, receiver)) });
  return { client: watched, latest: () => latest };
}

function fenceText(fence: Fence | undefined): string {
  return fence ? `${fence.holder} ${fence.shard} ${fence.epoch}` : '';
}
