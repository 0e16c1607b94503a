// BMO counts a host kept from its next state by a busy provisioner under the state it waits to
// enter (host_state_machine.go ensureCapacity, recordActionDelayed): a provisioned host that is
// deleted, or whose image is removed, waits for a deprovision slot while still `provisioned`.
import test from 'ava';
import { Registry } from 'prom-client';
import { hostKind } from '../../src/actors/host/host-kind.ts';
import type { HostDeps } from '../../src/actors/host/host.ts';
import { createManualClock } from '../../src/actors/runtime/manual-clock.ts';
import type { BareMetalHostStatus, ProvisioningState } from '../../src/api/index.ts';
import { initialStatus } from '../../src/api/index.ts';
import { BmoMetrics } from '../../src/adapters/observe/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import type { BmhState } from '../../src/machines/bmh/index.ts';

function hostWithMetrics(): { adapter: ReturnType<ReturnType<typeof hostKind>['adapter']>; registry: Registry } {
  const registry = new Registry();
  const observer = new BmoMetrics(registry, { list: () => [], get: () => undefined });
  const log = { debug() {}, info() {}, warn() {}, error() {}, child() { return log; } };
  const deps = {
    store: { writeStatus: async () => undefined },
    provisioner: {}, broker: {}, clock: createManualClock(0), config: DEFAULT_MACHINE_CONFIG, log, random: () => 0.5, grantTtlMs: 30_000,
    observer,
  } as unknown as HostDeps;
  const io = { tell() {}, run: () => true, draining: false } as never;
  return { adapter: hostKind('lab/h1', deps).adapter(io), registry };
}

function state(provisioning: ProvisioningState, o: Partial<BareMetalHostStatus>, slot: BmhState['slot']): BmhState {
  const status = { ...initialStatus(), operationalStatus: 'OK', poweredOn: true, ...o, provisioning: { state: provisioning, ID: 'node-1' } } as BareMetalHostStatus;
  return { host: { metadata: { name: 'h1', namespace: 'lab' }, spec: { online: true }, status }, slot, gone: false, waitingForSecret: null } as unknown as BmhState;
}

/** The host read as `from`, then its status written delayed while its slot request waits in `waiting`. */
async function delayedText(from: ProvisioningState, op: 'inspect' | 'provision' | 'deprovision' | 'service'): Promise<string> {
  const { adapter, registry } = hostWithMetrics();
  adapter.began?.(state(from, {}, { phase: 'none' }));
  const delayed = state(from, { operationalStatus: 'delayed' }, { phase: 'waiting', op, since: 0 });
  adapter.perform({ type: 'writeStatus', status: delayed.host.status }, delayed);
  return registry.metrics();
}

test('bmo delayed phase - a provisioned host waiting for a deprovision slot counts in metal3_delayed__deprovisioning_total', async (t) => {
  const text = await delayedText('provisioned', 'deprovision');
  t.regex(text, /^metal3_delayed__deprovisioning_total\{namespace="lab",host="h1"\} 1$/m);
  t.notRegex(text, /^metal3_delayed__provisioning_total\{/m);
});

test('bmo delayed phase - a host that failed provisioning and waits to deprovision is a deprovisioning delay, not a provisioning one', async (t) => {
  const text = await delayedText('provisioning', 'deprovision');
  t.regex(text, /^metal3_delayed__deprovisioning_total\{namespace="lab",host="h1"\} 1$/m);
  t.notRegex(text, /^metal3_delayed__provisioning_total\{/m);
});

test('bmo delayed phase - waits for an inspect or provision slot are provisioning delays; a servicing wait is none (BMO gates no servicing)', async (t) => {
  t.regex(await delayedText('registering', 'inspect'), /^metal3_delayed__provisioning_total\{namespace="lab",host="h1"\} 1$/m);
  t.regex(await delayedText('available', 'provision'), /^metal3_delayed__provisioning_total\{namespace="lab",host="h1"\} 1$/m);
  const serviced = await delayedText('provisioned', 'service');
  t.notRegex(serviced, /^metal3_delayed__(de)?provisioning_total\{/m);
});
