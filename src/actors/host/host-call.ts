import type { BareMetalHost } from '../../api/index.ts';
import type { CallArgs, OpResult } from '../../machines/bmh/index.ts';
import type { Fence, HostStore, Provisioner } from '../../ports/index.ts';
import { invoke } from '../../ports/index.ts';
import { resolveHostData } from './host-data.ts';

// One backend call of a host: its Secrets resolved just before it, stamped with the fence.
export async function callProvisioner(host: BareMetalHost, args: CallArgs, store: HostStore, provisioner: Provisioner, missingRetryMs: number, fence: Fence | undefined): Promise<OpResult> {
  try {
    const resolved = await resolveHostData(host, args, store, missingRetryMs);
    if (!resolved.ok) return resolved.result;
    return await invoke(provisioner, fence ? { ...resolved.data, fence } : resolved.data, args);
  } catch (err) {
    // A provisioner that throws broke its contract; treat it as transient and keep the reason.
    return { kind: 'transient', message: err instanceof Error ? err.message : String(err) };
  }
}
