import type { BareMetalHost } from '../../api/index.ts';
import type { CallArgs, OpResult } from '../../machines/bmh/index.ts';
import type { Fence, HostStore, Provisioner } from '../../ports/index.ts';
import { invoke } from '../../ports/index.ts';
import { resolveHostData } from './host-data.ts';

/** Why a call did not leave: the node's lease on the host's shard is no longer safely held. */
export const LEASE_NOT_HELD = 'the shard lease is no longer safely held on this node; the backend was not called (the shard\'s next owner takes this host)';

// One backend call of a host: its Secrets resolved just before it, stamped with the fence, and
// sent only while the shard lease is safely held. The lease is asked at the last moment, after
// every await: a node resumed from a pause runs its I/O callbacks (a finished call, a Secret
// read) before the timer that would declare the lease lost, and a backend without
// compare-and-set (Ironic, MAAS) would take that node's stale call.
export async function callProvisioner(host: BareMetalHost, args: CallArgs, store: HostStore, provisioner: Provisioner, missingRetryMs: number, fence: Fence | undefined, leaseHeld?: () => boolean): Promise<OpResult> {
  try {
    const resolved = await resolveHostData(host, args, store, missingRetryMs);
    if (!resolved.ok) return resolved.result;
    if (leaseHeld && !leaseHeld()) return { kind: 'transient', message: LEASE_NOT_HELD };
    return await invoke(provisioner, fence ? { ...resolved.data, fence, ...(leaseHeld ? { leaseHeld } : {}) } : resolved.data, args);
  } catch (err) {
    // A provisioner that throws broke its contract; treat it as transient and keep the reason.
    return { kind: 'transient', message: err instanceof Error ? err.message : String(err) };
  }
}
