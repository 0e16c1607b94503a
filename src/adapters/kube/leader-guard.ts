import type { HostData, Provisioner } from '../../ports/index.ts';
import type { CallArgs, OpResult } from '../../machines/bmh/index.ts';

export const LEADER_LEASE_NOT_HELD = 'the leader lease is not safely held by this process; the backend was not called (the leader drives this host)';

type Op = CallArgs['op'];
type ArgsOf<O extends Op> = Extract<CallArgs, { op: O }>;

/**
 * The provisioner of a leader-elected node: every call leaves only while the Lease is held,
 * asked at the moment of the call. Not starting the node before the Lease is won is the gate;
 * this is the second one, for a process whose event loop stalled past its renew deadline (its
 * deadline timer then fires late, possibly after I/O callbacks that would call the backend).
 */
export function leaderGuardedProvisioner(provisioner: Provisioner, holdsLease: () => boolean): Provisioner {
  const guard = <O extends Op>(op: O) => (host: HostData, args: ArgsOf<O>): Promise<OpResult> => {
    if (!holdsLease()) return Promise.resolve({ kind: 'transient', message: LEADER_LEASE_NOT_HELD });
    return (provisioner[op] as (h: HostData, a: ArgsOf<O>) => Promise<OpResult>).call(provisioner, host, args);
  };
  return {
    name: provisioner.name,
    capacity: (host) => provisioner.capacity(host),
    register: guard('register'),
    inspect: guard('inspect'),
    prepare: guard('prepare'),
    provision: guard('provision'),
    deprovision: guard('deprovision'),
    adopt: guard('adopt'),
    powerOn: guard('powerOn'),
    powerOff: guard('powerOff'),
    hardwareState: guard('hardwareState'),
    detach: guard('detach'),
    delete: guard('delete'),
    ...(provisioner.requests ? { requests: () => provisioner.requests!() } : {}),
    ...(provisioner.close ? { close: () => provisioner.close!() } : {}),
  };
}
