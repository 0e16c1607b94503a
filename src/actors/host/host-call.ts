import type { BareMetalHost } from '../../api/index.ts';
import type { CallArgs, CredentialsUsed, OpResult } from '../../machines/bmh/index.ts';
import type { Fence, Provisioner, ResourceStore } from '../../ports/index.ts';
import { invoke } from '../../ports/index.ts';
import { sameCredentials } from '../../machines/bmh/index.ts';
import { resolveHostData } from './host-data.ts';
import { errorMessage } from '../../api/index.ts';

/** Why a call did not leave: the node's lease on the host's shard is no longer safely held. */
export const LEASE_NOT_HELD = 'a lease this node drives under (the shard\'s, or the leader Lease) is no longer safely held; the backend was not called (whoever holds it drives this object)';

// One backend call of a host: its Secrets resolved just before it, stamped with the fence, and
// sent only while the shard lease is safely held. The lease is asked at the last moment, after
// every await: a node resumed from a pause runs its I/O callbacks (a finished call, a Secret
// read) before the timer that would declare the lease lost, and a backend without
// compare-and-set (Ironic, MAAS) would take that node's stale call.
export async function callProvisioner(host: BareMetalHost, args: CallArgs, store: Pick<ResourceStore, 'getSecret'>, provisioner: Provisioner, missingRetryMs: number, fence: Fence | undefined, leaseHeld?: () => boolean): Promise<OpResult> {
  return (await callBackend(host, args, store, provisioner, missingRetryMs, fence, leaseHeld)).result;
}

/**
 * Where a call waits its turn at its backend (a per-backend bound, actors/calls): the resolution
 * of its Secrets, the lease check and the call itself all run inside it, so a call that waited
 * asks the lease after its wait, and its credentials are read only once it may leave.
 */
export type CallLane = <T>(call: () => Promise<T>) => Promise<T>;

/** What a call came back with, and the credentials Secret version a register call used. */
export interface CallOutcome {
  readonly result: OpResult;
  readonly credentials?: CredentialsUsed;
}

/**
 * callProvisioner, telling which credentials a register call used. A register whose Secret
 * version differs from status.triedCredentials says the credentials changed, so the backend
 * replaces what it holds for the BMC (BMO's credsChanged).
 */
export async function callBackend(host: BareMetalHost, args: CallArgs, store: Pick<ResourceStore, 'getSecret'>, provisioner: Provisioner, missingRetryMs: number, fence: Fence | undefined, leaseHeld?: () => boolean, lane?: CallLane): Promise<CallOutcome> {
  const call = async (): Promise<CallOutcome> => {
    const resolved = await resolveHostData(host, args, store, missingRetryMs);
    if (!resolved.ok) return { result: resolved.result };
    if (leaseHeld && !leaseHeld()) return { result: { kind: 'transient', message: LEASE_NOT_HELD } };
    const used = resolved.credentials;
    const sent = args.op === 'register' && used && !args.credentialsChanged && !sameCredentials(host.status?.triedCredentials, used) ? { ...args, credentialsChanged: true } : args;
    const data = fence ? { ...resolved.data, fence, ...(leaseHeld ? { leaseHeld } : {}) } : resolved.data;
    const result = await invoke(provisioner, data, sent);
    return used ? { result, credentials: used } : { result };
  };
  try {
    return await (lane ? lane(call) : call());
  } catch (err) {
    // A provisioner that throws broke its contract; treat it as transient and keep the reason.
    return { result: { kind: 'transient', message: errorMessage(err) } };
  }
}

