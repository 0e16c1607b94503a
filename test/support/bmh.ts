import type { BareMetalHost } from '../../src/api/index.ts';
import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { BmhEffect, BmhEvent, BmhState, CallArgs, MachineConfig, OpResult, Step } from '../../src/machines/bmh/index.ts';
import { computeConditions, DEFAULT_MACHINE_CONFIG, HOST_FINALIZER, NO_BACKEND_HINTS } from '../../src/machines/bmh/index.ts';
import { effectiveRootDeviceHints } from '../../src/machines/bmh/hardware-profile.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');

export type HostOverrides = {
  spec?: Partial<BareMetalHost['spec']>;
  annotations?: Record<string, string>;
  status?: Partial<NonNullable<BareMetalHost['status']>>;
  deletionTimestamp?: string;
  finalizers?: string[];
};

export function makeHost(o: HostOverrides = {}): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: 'worker-0', namespace: 'metal3', uid: 'uid-0', generation: 1,
      annotations: o.annotations ?? {}, finalizers: o.finalizers ?? [HOST_FINALIZER],
      ...(o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {}),
    },
    spec: {
      online: true,
      bootMode: 'UEFI',
      automatedCleaningMode: 'metadata',
      bmc: { address: 'redfish://192.168.111.1:8000/redfish/v1/Systems/1', credentialsName: 'worker-0-bmc' },
      bootMACAddress: '00:11:22:33:44:55',
      image: { url: 'http://images/ubuntu.qcow2', checksum: 'abc', checksumType: 'sha256' },
      ...o.spec,
    },
    ...(o.status ? { status: { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state: '', ID: '' }, ...o.status } } : {}),
  } as BareMetalHost;
}

const UNREGISTERED = new Set(['', 'unmanaged', 'registering']);

export function atState(state: NonNullable<BareMetalHost['status']>['provisioning']['state'], o: HostOverrides = {}, config: Partial<MachineConfig> = {}): BmhState {
  const bare = makeHost({ ...o, status: { ...o.status, provisioning: { state, ID: 'node-1', ...o.status?.provisioning } } });
  // A registered host's status holds the root device hints registration recorded (BMO matchProfile).
  const hints = UNREGISTERED.has(state) ? undefined : effectiveRootDeviceHints({ ...bare, status: bare.status! });
  const host = hints && !o.status?.provisioning || (hints && !('rootDeviceHints' in (o.status?.provisioning ?? {})))
    ? { ...bare, status: { ...bare.status!, provisioning: { ...bare.status!.provisioning, rootDeviceHints: hints } } }
    : bare;
  const s = initialState(host, { ...DEFAULT_MACHINE_CONFIG, ...config });
  // A host at rest in a state already carries the conditions BMO (or an earlier step) wrote for it.
  const conditions = o.status?.conditions ?? computeConditions(s.host, T0, NO_BACKEND_HINTS);
  // ... and an actor already running it: its power read made, any grant of an earlier one settled.
  return { ...s, host: { ...s.host, status: { ...s.host.status, conditions } }, powerCheckAt: T0 + 60_000, grantInherited: false };
}

export function calls(effects: readonly BmhEffect[]): CallArgs[] {
  return effects.flatMap((e) => (e.type === 'call' ? [e.args] : []));
}

export function types(effects: readonly BmhEffect[]): string[] {
  return effects.filter((e) => e.type !== 'event').map((e) => e.type);
}

export function lastCall(s: Step): Extract<BmhEffect, { type: 'call' }> | undefined {
  return s.effects.filter((e): e is Extract<BmhEffect, { type: 'call' }> => e.type === 'call').at(-1);
}

// Feeds the result of the call the last step made.
export function reply(prev: Step, result: OpResult, now = T0, jitter = 0): Step {
  const call = lastCall(prev);
  if (!call) throw new Error(`no call to reply to; effects: ${types(prev.effects).join(',')}`);
  return step(prev.state, { type: 'result', seq: call.seq, result, jitter }, now);
}

export function grant(s: BmhState, now = T0): Step {
  return step(s, { type: 'slotGranted', grantId: 'g1' }, now);
}

export function tick(s: BmhState, now = T0): Step {
  return step(s, { type: 'tick' }, now);
}

export function observe(s: BmhState, host: BareMetalHost, now = T0): Step {
  return step(s, { type: 'observed', host }, now);
}

export function withHost(s: BmhState, mutate: (h: BareMetalHost) => BareMetalHost): BareMetalHost {
  return mutate(structuredClone(s.host));
}

export const done: OpResult = { kind: 'done' };

export function send(s: BmhState, e: BmhEvent, now = T0): Step {
  return step(s, e, now);
}

// Plays the actor: grants every slot request and answers every call with the oracle, until the
// machine asks for nothing more. Returns every effect seen on the way.
export function settle(start: Step, oracle: (args: CallArgs) => OpResult = () => done, now = T0, maxSteps = 100): { last: Step; all: BmhEffect[] } {
  let cur = start;
  const all: BmhEffect[] = [...start.effects];
  for (let i = 0; i < maxSteps; i++) {
    const call = lastCall(cur);
    const wantsSlot = cur.effects.some((e) => e.type === 'requestSlot');
    if (call) cur = step(cur.state, { type: 'result', seq: call.seq, result: oracle(call.args), jitter: 0 }, now);
    else if (wantsSlot) cur = step(cur.state, { type: 'slotGranted', grantId: `g${i}` }, now);
    else return { last: cur, all };
    all.push(...cur.effects);
  }
  throw new Error('machine did not settle');
}
