import type { SlotState } from '../bmh/index.ts';

// What MAAS told us about the machine, as the machine needs it (the driver maps MAAS JSON).
export interface MaasView {
  readonly systemId: string;
  readonly hostname: string;
  readonly fqdn: string;
  readonly statusName: string;
  readonly powerState: string;
  readonly ipAddresses: readonly string[];
  readonly zone: string;
}

export type MaasOp = 'allocate' | 'get' | 'swapOff' | 'deploy' | 'release' | 'powerOn';

export type MaasCall =
  | { op: 'allocate'; cpuCount: number; memMb: number; zone?: string; pool?: string; tags?: readonly string[] }
  | { op: 'get'; systemId: string }
  | { op: 'swapOff'; systemId: string }
  | { op: 'deploy'; systemId: string; image: string; ephemeral: boolean }
  | { op: 'release'; systemId: string }
  | { op: 'powerOn'; systemId: string };

export type MaasResult =
  | { kind: 'done'; machine?: MaasView }
  | { kind: 'notFound' }
  // noMatch: nothing fits the constraints (MAAS 409); forbidden: the key may not do this (403).
  | { kind: 'failed'; message: string; reason?: 'noMatch' | 'forbidden' | 'conflict' | 'broken' }
  | { kind: 'transient'; message: string };

// What the actor resolves around the object before each step.
export interface MaasContext {
  readonly bootstrapReady: boolean; // the owner Machine names a bootstrap Secret that exists
  readonly controlPlane: boolean;
  readonly clusterName: string | null;
  readonly failureDomain: string | null; // Machine.spec.failureDomain, the fallback zone
}

export interface MaasMachineConfig {
  // CAPMAAS #85: swap can only be turned off with an admin key.
  readonly skipSwap: boolean;
  readonly deployingPollMs: number;
  readonly steadyPollMs: number; // how often a ready machine is looked at (power loss)
  readonly powerOnRequeueMs: number; // CAPMAAS: 1 min
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
}

export const DEFAULT_MAAS_MACHINE_CONFIG: MaasMachineConfig = {
  skipSwap: false,
  deployingPollMs: 10_000,
  steadyPollMs: 60_000,
  powerOnRequeueMs: 60_000,
  backoffBaseMs: 5_000,
  backoffMaxMs: 300_000,
};

export type MaasMachineEffect =
  | { type: 'call'; seq: number; call: MaasCall }
  | { type: 'requestSlot'; op: 'deploy' | 'release' }
  | { type: 'releaseSlot' }
  | { type: 'writeSpec'; patch: { providerID: string | null; systemID: string | null; failureDomain?: string } }
  | { type: 'writeStatus'; status: Record<string, unknown> }
  | { type: 'requeue'; afterMs: number }
  | { type: 'addFinalizer'; finalizer: string }
  | { type: 'removeFinalizer'; finalizer: string }
  | { type: 'event'; severity: 'Normal' | 'Warning'; reason: string; message: string };

export type MaasMachineEvent =
  | { type: 'observed'; object: unknown; context: MaasContext }
  | { type: 'tick' }
  | { type: 'result'; seq: number; result: MaasResult }
  | { type: 'slotGranted'; grantId: string }
  | { type: 'slotQueued'; position: number }
  | { type: 'slotLost'; grantId: string; reason: string };

export type { SlotState };
