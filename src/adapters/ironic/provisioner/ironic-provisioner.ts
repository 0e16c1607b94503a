import { parseBmcAddress } from '../../../api/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { CapacityClaim, HostData, Provisioner } from '../../../ports/index.ts';
import type { IronicClient } from '../client/index.ts';
import { IronicError } from '../client/index.ts';
import { adopt } from './adopt.ts';
import type { StepContext } from './context.ts';
import { deprovision } from './deprovision.ts';
import { inspect } from './inspect.ts';
import type { DeployImages, DriverOverride } from './node-spec.ts';
import type { Polls } from './outcome.ts';
import { failed, needsRegistration } from './outcome.ts';
import { hardwareState, setPower } from './power.ts';
import { prepare } from './prepare.ts';
import { provision } from './provision.ts';
import { register } from './register.ts';
import { removeNode } from './remove.ts';

export interface IronicProvisionerOptions {
  readonly client: IronicClient;
  // The capacity pool: one per Ironic endpoint, so several Ironics each keep their own limit.
  readonly pool?: string;
  readonly driverOverride?: DriverOverride | null;
  readonly deploy?: DeployImages;
  readonly polls?: Partial<Polls>;
  readonly imageCheck?: { enabled?: boolean; timeoutMs?: number };
}

export function createIronicProvisioner(o: IronicProvisionerOptions): Provisioner {
  const ctx: StepContext = {
    client: o.client,
    polls: { shortMs: o.polls?.shortMs ?? 3_000, longMs: o.polls?.longMs ?? 10_000 },
    override: o.driverOverride ?? null,
    deploy: o.deploy ?? {},
    imageCheck: { enabled: o.imageCheck?.enabled ?? true, timeoutMs: o.imageCheck?.timeoutMs ?? 5_000 },
    cleaning: new Set(),
    ports: new Set(),
  };
  const pool = o.pool ?? `ironic:${o.client.endpoint}`;
  const guard = (fn: () => Promise<OpResult>): Promise<OpResult> => fn().catch(toResult);
  return {
    name: 'ironic',
    capacity(host: HostData): CapacityClaim {
      const bmc = parseBmcAddress(host.spec.bmc?.address ?? '');
      return { pool, exempt: bmc.ok && bmc.bmc.supportsVirtualMedia };
    },
    register: (host, a) => guard(() => register(ctx, host, a.restartOnFailure)),
    inspect: (host, a) => guard(() => inspect(ctx, host, a)),
    prepare: (host, a) => guard(() => prepare(ctx, host, a.restartOnFailure)),
    provision: (host) => guard(() => provision(ctx, host)),
    deprovision: (host, a) => guard(() => deprovision(ctx, host, a)),
    adopt: (host, a) => guard(() => adopt(ctx, host, a.restartOnFailure)),
    powerOn: (host) => guard(() => setPower(ctx, host, 'on', 'hard')),
    powerOff: (host, a) => guard(() => setPower(ctx, host, 'off', a.mode)),
    hardwareState: (host) => guard(() => hardwareState(ctx, host)),
    detach: (host, a) => guard(() => removeNode(ctx, host, a.force)),
    delete: (host) => guard(() => removeNode(ctx, host, true)),
  };
}

// Ironic errors become results: a vanished node asks for registration, a retryable one is
// transient (fast retry, no status change), anything else fails this attempt with Ironic's words.
function toResult(err: unknown): OpResult {
  if (err instanceof IronicError) {
    if (err.code === 'not-found') return needsRegistration;
    if (err.retryable) return { kind: 'transient', message: err.message };
    return failed(err.message);
  }
  return { kind: 'transient', message: err instanceof Error ? err.message : String(err) };
}
