// BMO's metrics as metalfleet derives them from what host actors report: the rules, without I/O.
import test from 'ava';
import { Registry } from 'prom-client';
import type { BareMetalHostStatus, ProvisioningState } from '../../src/api/index.ts';
import { initialStatus } from '../../src/api/index.ts';
import type { ActorStats } from '../../src/actors/runtime/index.ts';
import type { MachineView } from '../../src/machines/logic.ts';
import type { HostMemory, HostObservation, MetricIncrement } from '../../src/adapters/observe/index.ts';
import { BmoMetrics, hostStepDeltas, mailboxDepthByKind, observeHost, registerFleetMetrics } from '../../src/adapters/observe/index.ts';

// BMO's metrics.go, copied by hand: name, type, label names, buckets.
const GO_DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SLOW = [30, 90, 180, 360, 720, 1440];
const HOST = ['namespace', 'host'];
const BMO: ReadonlyArray<{ name: string; type: 'counter' | 'histogram'; labels: string[]; buckets?: number[] }> = [
  { name: 'metal3_reconcile_total', type: 'counter', labels: HOST },
  { name: 'metal3_reconcile_error_total', type: 'counter', labels: [] },
  { name: 'metal3_host_error_total', type: 'counter', labels: ['error_type'] },
  { name: 'metal3_operation_power_change_total', type: 'counter', labels: [...HOST, 'on_off'] },
  { name: 'metal3_credentials_missing_total', type: 'counter', labels: [] },
  { name: 'metal3_credentials_invalid_total', type: 'counter', labels: [] },
  { name: 'metal3_credentials_unhandled_error_total', type: 'counter', labels: [] },
  { name: 'metal3_credentials_updated_total', type: 'counter', labels: [] },
  { name: 'metal3_waiting_for_preprov_image_total', type: 'counter', labels: [] },
  { name: 'metal3_credentials_no_management_access_total', type: 'counter', labels: [] },
  { name: 'metal3_host_config_data_error_total', type: 'counter', labels: ['host_data_type'] },
  { name: 'metal3_delayed__provisioning_total', type: 'counter', labels: HOST },
  { name: 'metal3_delayed__deprovisioning_total', type: 'counter', labels: HOST },
  { name: 'metal3_operation_register_duration_seconds', type: 'histogram', labels: HOST, buckets: GO_DEF_BUCKETS },
  { name: 'metal3_operation_inspect_duration_seconds', type: 'histogram', labels: HOST, buckets: SLOW },
  { name: 'metal3_operation_provision_duration_seconds', type: 'histogram', labels: HOST, buckets: SLOW },
  { name: 'metal3_operation_deprovision_duration_seconds', type: 'histogram', labels: HOST, buckets: SLOW },
  { name: 'metal3_provisioning_state_change_total', type: 'counter', labels: ['prev_state', 'new_state'] },
  { name: 'metal3_host_registration_required_total', type: 'counter', labels: [] },
  { name: 'metal3_host_unmanaged_total', type: 'counter', labels: [] },
  { name: 'metal3_delete_without_deprovisioning_total', type: 'counter', labels: [] },
  { name: 'metal3_delete_without_powering_off_total', type: 'counter', labels: [] },
  { name: 'metal3_provisioner_not_ready_total', type: 'counter', labels: [] },
  { name: 'metal3_delete_delayed_for_detached_total', type: 'counter', labels: [] },
  // metalfleet's own beside them (BMO counts no servicing).
  { name: 'metalfleet_operation_servicing_total', type: 'counter', labels: HOST },
  { name: 'metalfleet_operation_servicing_duration_seconds', type: 'histogram', labels: [...HOST, 'outcome'], buckets: SLOW },
];

const T = '2026-12-02T10:00:00.000Z';
const T90 = '2026-12-02T10:01:30.000Z';

function status(state: ProvisioningState, o: Partial<BareMetalHostStatus> = {}): BareMetalHostStatus {
  return { ...initialStatus(), operationalStatus: 'OK', ...o, provisioning: { state, ID: 'n1' } };
}

/** Runs observations through observeHost from no memory; all increments, in order. */
function run(...observations: HostObservation[]): { increments: MetricIncrement[]; memory: HostMemory | undefined } {
  let memory: HostMemory | undefined;
  const increments: MetricIncrement[] = [];
  for (const o of observations) {
    const r = observeHost(memory, o);
    memory = r.memory;
    increments.push(...r.increments);
  }
  return { increments, memory };
}

const metrics = (r: { increments: MetricIncrement[] }): string[] => r.increments.map((i) => i.metric);

test('bmo metrics - every metric of BMO metrics.go is registered with its name, type, label names and buckets', async (t) => {
  const registry = new Registry();
  new BmoMetrics(registry, actorsOf([]));
  const json = await registry.getMetricsAsJSON();
  t.deepEqual(json.map((m) => m.name).sort(), BMO.map((m) => m.name).sort());
  for (const spec of BMO) {
    const metric = registry.getSingleMetric(spec.name) as unknown as { labelNames: string[]; upperBounds?: number[] };
    t.is(String(json.find((m) => m.name === spec.name)?.type), spec.type, spec.name);
    t.deepEqual([...metric.labelNames], spec.labels, `${spec.name} labels`);
    if (spec.buckets) t.deepEqual([...(metric.upperBounds ?? [])], spec.buckets, `${spec.name} buckets`);
  }
});

test('bmo metrics - metal3_provisioning_state_change_total: one count per state change though the status is reported twice', (t) => {
  const moved = status('inspecting', { operationHistory: { register: { start: T, end: T90 }, inspect: { start: T90 } } });
  const r = run(
    { type: 'loaded', status: status('registering', { operationHistory: { register: { start: T } } }) },
    { type: 'statusChanged', status: moved },
    { type: 'stateChanged', from: 'registering', to: 'inspecting' },
  );
  t.deepEqual(r.increments.filter((i) => i.metric === 'stateChange'), [{ metric: 'stateChange', prev: 'registering', next: 'inspecting' }]);
  t.deepEqual(r.increments.filter((i) => i.metric === 'operationDuration'), [{ metric: 'operationDuration', operation: 'register', seconds: 90 }], 'the register duration, once');
});

test('bmo metrics - a host actor that (re)loads a host counts nothing: its past was counted where it happened', (t) => {
  const r = run({ type: 'loaded', status: status('provisioned', { poweredOn: true, errorCount: 2, errorType: 'provisioning error', operationHistory: { provision: { start: T, end: T90 } } }) });
  t.deepEqual(r.increments, []);
  t.is(r.memory?.state, 'provisioned');
});

test('bmo metrics - metal3_operation_*_duration_seconds: observed when operationHistory gets an end, in seconds from its start', (t) => {
  const r = run(
    { type: 'loaded', status: status('deprovisioning', { operationHistory: { deprovision: { start: T } } }) },
    { type: 'statusChanged', status: status('deprovisioning', { operationHistory: { deprovision: { start: T } } }) },
    { type: 'statusChanged', status: status('available', { operationHistory: { deprovision: { start: T, end: T90 } } }) },
    { type: 'stateChanged', from: 'deprovisioning', to: 'available' },
  );
  t.deepEqual(r.increments.filter((i) => i.metric === 'operationDuration'), [{ metric: 'operationDuration', operation: 'deprovision', seconds: 90 }]);
});

test('bmo metrics - metal3_host_error_total counts each failure with BMO error_type; a credentials problem counts only as missing or invalid credentials', (t) => {
  const failed = (n: number, errorType: BareMetalHostStatus['errorType'], errorMessage: string): HostObservation => ({ type: 'statusChanged', status: status('provisioning', { operationalStatus: 'error', errorType, errorMessage, errorCount: n }) });
  const r = run(
    { type: 'loaded', status: status('provisioning') },
    failed(1, 'provisioning error', 'deploy failed'),
    failed(1, 'provisioning error', 'deploy failed'),
    failed(2, 'provisioning error', 'deploy failed again'),
  );
  t.deepEqual(r.increments, [{ metric: 'hostError', errorType: 'ProvisioningError' }, { metric: 'hostError', errorType: 'ProvisioningError' }]);
  const creds = run(
    { type: 'loaded', status: status('registering') },
    failed(1, 'registration error', 'BMC credentials Secret lab/bmc not found'),
    failed(2, 'registration error', 'BMC credentials Secret lab/bmc: key "password" is missing or empty'),
    failed(3, 'registration error', 'spec.bmc.credentialsName is empty: name the Secret holding the BMC username and password'),
    failed(4, 'registration error', 'Ironic answered HTTP 400: bad driver'),
  );
  t.deepEqual(metrics(creds), ['credentialsMissing', 'credentialsInvalid', 'credentialsInvalid', 'hostError']);
  t.deepEqual(creds.increments[3], { metric: 'hostError', errorType: 'RegistrationError' });
});

test('bmo metrics - metal3_delayed__(de)provisioning_total: a host queued for a capacity slot, by whether it deprovisions; a data Secret wait is no delay', (t) => {
  const r = run(
    { type: 'loaded', status: status('provisioning') },
    { type: 'statusChanged', status: status('provisioning', { operationalStatus: 'delayed' }) },
    { type: 'statusChanged', status: status('provisioning', { operationalStatus: 'delayed' }) },
    { type: 'statusChanged', status: status('provisioning', { operationalStatus: 'OK' }) },
    { type: 'statusChanged', status: status('provisioning', { operationalStatus: 'delayed', errorMessage: 'waiting for Secret lab/ud (spec.userData), which does not exist; provisioning continues as soon as it does' }) },
  );
  t.deepEqual(r.increments, [{ metric: 'delayed', phase: 'provisioning' }]);
  const d = run({ type: 'loaded', status: status('deprovisioning') }, { type: 'statusChanged', status: status('deprovisioning', { operationalStatus: 'delayed' }) });
  t.deepEqual(d.increments, [{ metric: 'delayed', phase: 'deprovisioning' }]);
});

test('bmo metrics - metalfleet_operation_servicing_*: each servicing begun is counted, and timed from its first servicing write to its end, by outcome; its slot wait is no provisioning delay', async (t) => {
  const T180 = '2026-12-02T10:03:00.000Z';
  const r = run(
    { type: 'loaded', status: status('provisioned', { lastUpdated: T }) },
    { type: 'statusChanged', status: status('provisioned', { operationalStatus: 'delayed', lastUpdated: T }) },
    { type: 'statusChanged', status: status('provisioned', { operationalStatus: 'servicing', lastUpdated: T }) },
    { type: 'statusChanged', status: status('provisioned', { operationalStatus: 'servicing', lastUpdated: T90 }) },
    { type: 'statusChanged', status: status('provisioned', { operationalStatus: 'error', errorType: 'servicing error', errorMessage: 'bios', errorCount: 1, lastUpdated: T180 }) },
    { type: 'statusChanged', status: status('provisioned', { operationalStatus: 'servicing', errorType: 'servicing error', errorMessage: 'bios', errorCount: 1, lastUpdated: T180 }) },
    { type: 'statusChanged', status: status('provisioned', { operationalStatus: 'OK', lastUpdated: '2026-12-02T10:04:00.000Z' }) },
  );
  t.deepEqual(r.increments, [
    { metric: 'servicing' },
    { metric: 'hostError', errorType: 'ServicingError' },
    { metric: 'servicingDuration', seconds: 180, outcome: 'error' },
    { metric: 'servicing' },
    { metric: 'servicingDuration', seconds: 60, outcome: 'ok' },
  ]);
  const registry = new Registry();
  const m = new BmoMetrics(registry, actorsOf([]));
  m.statusRead('lab/h', status('provisioned', { lastUpdated: T }));
  m.statusChanged('lab/h', status('provisioned', { operationalStatus: 'servicing', lastUpdated: T }));
  m.statusChanged('lab/h', status('provisioned', { operationalStatus: 'OK', lastUpdated: T90 }));
  const text = await registry.metrics();
  t.regex(text, /^metalfleet_operation_servicing_total\{namespace="lab",host="h"\} 1$/m);
  t.regex(text, /^metalfleet_operation_servicing_duration_seconds_bucket\{le="90",namespace="lab",host="h",outcome="ok"\} 1$/m);
  t.regex(text, /^metalfleet_operation_servicing_duration_seconds_bucket\{le="30",namespace="lab",host="h",outcome="ok"\} 0$/m);
});

test('bmo metrics - metal3_operation_power_change_total and metal3_credentials_updated_total count changes in status', (t) => {
  const tried = (version: string): Partial<BareMetalHostStatus> => ({ triedCredentials: { credentials: { name: 'bmc', namespace: 'lab' }, credentialsVersion: version } });
  const r = run(
    { type: 'loaded', status: status('provisioned', { poweredOn: false, ...tried('1') }) },
    { type: 'statusChanged', status: status('provisioned', { poweredOn: true, ...tried('1') }) },
    { type: 'statusChanged', status: status('provisioned', { poweredOn: true, ...tried('2') }) },
    { type: 'statusChanged', status: status('provisioned', { poweredOn: false, ...tried('2') }) },
  );
  t.deepEqual(r.increments, [{ metric: 'powerChange', onOff: 'on' }, { metric: 'credentialsUpdated' }, { metric: 'powerChange', onOff: 'off' }]);
});

test('bmo metrics - metal3_host_unmanaged_total and metal3_host_registration_required_total count entries into unmanaged and registering', (t) => {
  const r = run(
    { type: 'loaded', status: status('') },
    { type: 'stateChanged', from: '', to: 'unmanaged' },
    { type: 'stateChanged', from: 'unmanaged', to: 'registering' },
  );
  t.deepEqual(metrics(r), ['stateChange', 'hostUnmanaged', 'stateChange', 'registrationRequired']);
});

test('bmo metrics - metal3_delete_without_(deprovisioning|powering_off)_total: a deletion step given up, by the state it was given up in', (t) => {
  const skipped: HostObservation = { type: 'warning', reason: 'DeletionStepSkipped', message: 'giving up after 4 failures: boom' };
  const deprov = run({ type: 'loaded', status: status('deprovisioning') }, skipped);
  t.deepEqual(metrics(deprov), ['deleteWithoutDeprovisioning']);
  // The warning is performed before the state change is reported; a status write may come first.
  const off = run({ type: 'loaded', status: status('powering off before delete') }, { type: 'statusChanged', status: status('deleting') }, skipped);
  t.deepEqual(metrics(off), ['deleteWithoutPoweringOff']);
  t.deepEqual(metrics(run({ type: 'loaded', status: status('provisioned') }, { type: 'warning', reason: 'CapacitySlotLost', message: 'x' })), []);
});

test('bmo metrics - metal3_host_config_data_error_total{host_data_type}: a data Secret without its key, as BMO NoDataInSecretError; a missing Secret is not counted', (t) => {
  const wait = (message: string): HostObservation => ({ type: 'warning', reason: 'WaitingForSecret', message });
  const r = run(
    { type: 'loaded', status: status('provisioning') },
    wait('waiting for Secret lab/nd (spec.networkData), which has no key "networkData" or "value"; provisioning continues as soon as it has one'),
    wait('waiting for Secret lab/ud (spec.userData), which does not exist; provisioning continues as soon as it does'),
  );
  t.deepEqual(r.increments, [{ metric: 'hostConfigDataError', dataType: 'networkData' }]);
});

/** The two questions BmoMetrics asks the actor registry, over a list the test changes. */
function actorsOf(list: ActorStats[]): { list: () => ActorStats[]; get: (path: string) => ActorStats | undefined } {
  return { list: () => list, get: (path) => list.find((a) => a.path === path) };
}

function actor(name: string, o: Partial<ActorStats> = {}): ActorStats {
  return { path: `/n/shard-1-e1/${name}`, name, kind: 'host', parent: '/n/shard-1-e1', mailboxDepth: 0, highWater: 0, processed: 0, restarts: 0, lastError: null, lastErrorAt: null, busy: false, restarting: false, dropped: 0, startedAt: 0, ...o };
}

test('bmo metrics - metal3_reconcile_total is host actor steps and metal3_reconcile_error_total host actor crashes, each counted once across scrapes', (t) => {
  const first = hostStepDeltas(new Map(), [actor('lab~a', { processed: 5 }), actor('lab~b', { processed: 2, restarts: 1 }), actor('shard-1-e1', { kind: 'shard', processed: 40 })]);
  t.deepEqual(first.deltas, [{ namespace: 'lab', name: 'a', steps: 5, failures: 0 }, { namespace: 'lab', name: 'b', steps: 2, failures: 1 }]);
  const second = hostStepDeltas(first.seen, [actor('lab~a', { processed: 8 }), actor('lab~b', { processed: 2, restarts: 1 })]);
  t.deepEqual(second.deltas, [{ namespace: 'lab', name: 'a', steps: 3, failures: 0 }]);
});

test('bmo metrics - the change stream and the host\'s status feed the registry: state changes by prev_state/new_state, durations by namespace/host; other kinds count nothing', async (t) => {
  const registry = new Registry();
  const m = new BmoMetrics(registry, actorsOf([actor('lab~h', { processed: 3 })]));
  const view = (state: string): MachineView => ({ state, power: 'off', operationalStatus: 'OK', error: null });
  m.statusRead('lab/h', status('provisioning', { operationHistory: { provision: { start: T } } }));
  m.changed({ kind: 'BareMetalHost', key: 'lab/h', from: null, to: 'provisioning', view: view('provisioning') });
  const done = status('provisioned', { operationHistory: { provision: { start: T, end: T90 } } });
  m.statusChanged('lab/h', done);
  m.changed({ kind: 'BareMetalHost', key: 'lab/h', from: 'provisioning', to: 'provisioned', view: view('provisioned') });
  m.changed({ kind: 'MaasMachine', key: 'lab/h', from: 'Deploying', to: 'Deployed', view: view('Deployed') });
  const text = await registry.metrics();
  t.regex(text, /^metal3_provisioning_state_change_total\{prev_state="provisioning",new_state="provisioned"\} 1$/m);
  t.notRegex(text, /new_state="Deployed"/, 'BMO counts BareMetalHosts only');
  t.regex(text, /^metal3_operation_provision_duration_seconds_bucket\{le="90",namespace="lab",host="h"\} 1$/m);
  t.regex(text, /^metal3_operation_provision_duration_seconds_bucket\{le="30",namespace="lab",host="h"\} 0$/m);
  t.regex(text, /^metal3_reconcile_total\{namespace="lab",host="h"\} 3$/m);
});

test('bmo metrics - metal3_reconcile_total: the steps of a deleted host up to its end are counted once, when it goes, and not again at the next scrape', async (t) => {
  const registry = new Registry();
  const actors = [actor('lab~gone', { processed: 4 })];
  const m = new BmoMetrics(registry, actorsOf(actors));
  const reconciles = async (): Promise<string> => /^metal3_reconcile_total\{namespace="lab",host="gone"\} (\d+)$/m.exec(await registry.metrics())?.[1] ?? 'none';
  t.is(await reconciles(), '4');
  actors[0] = actor('lab~gone', { processed: 9 });
  m.gone('lab/gone');
  // The actor is still registered while its shard stops it: the scrape must not count it twice.
  t.is(await reconciles(), '9');
  actors.length = 0;
  t.is(await reconciles(), '9');
});

test('fleet metrics - mailbox depth by actor kind, pools from the broker with their stall seconds, backend requests by route and status', async (t) => {
  const registry = new Registry();
  let broker = true;
  registerFleetMetrics(registry, {
    machines: () => new Map([
      ['BareMetalHost', { byState: new Map([['provisioned', 2], ['available', 0]]), moves: new Map([['provisioning', new Map([['provisioned', 2]])]]) }],
      ['MaasMachine', { byState: new Map([['Deployed', 1]]), moves: new Map([['Deploying', new Map([['Deployed', 1]])]]) }],
    ]),
    shardsOwned: () => 3,
    mailboxDepth: () => mailboxDepthByKind([actor('lab~a', { mailboxDepth: 2 }), actor('lab~b', { mailboxDepth: 1 }), actor('shard-1-e1', { kind: 'shard', mailboxDepth: 4 })]),
    capacityPools: () => Promise.resolve(broker ? [{ pool: 'ironic:a', inUse: 5, waiting: 2, stallSeconds: 1.5 }] : null),
    backendRequests: () => [{ backend: 'ironic:a', route: 'GET /v1/nodes/{node}', status: '200', count: 9 }, { backend: 'ironic:a', route: 'GET /v1/nodes/{node}', status: 'timeout', count: 1 }],
  });
  const text = await registry.metrics();
  t.regex(text, /^metalfleet_hosts\{state="provisioned"\} 2$/m);
  t.notRegex(text, /metalfleet_hosts\{state="available"\}/, 'no series for an empty state');
  t.regex(text, /^metalfleet_machines\{kind="BareMetalHost",state="provisioned"\} 2$/m);
  t.regex(text, /^metalfleet_machines\{kind="MaasMachine",state="Deployed"\} 1$/m);
  t.regex(text, /^metalfleet_machine_transitions_total\{kind="MaasMachine",from="Deploying",to="Deployed"\} 1$/m);
  t.regex(text, /^metalfleet_maas_machines\{state="Deployed"\} 1$/m);
  t.regex(text, /^metalfleet_mailbox_depth\{kind="host"\} 3$/m);
  t.regex(text, /^metalfleet_mailbox_depth\{kind="shard"\} 4$/m);
  t.regex(text, /^metalfleet_capacity_slots_in_use\{pool="ironic:a"\} 5$/m);
  t.regex(text, /^metalfleet_capacity_waiting\{pool="ironic:a"\} 2$/m);
  t.regex(text, /^metalfleet_capacity_stall_seconds_total\{pool="ironic:a"\} 1\.5$/m);
  t.regex(text, /^metalfleet_backend_requests_total\{backend="ironic:a",route="GET \/v1\/nodes\/\{node\}",status="timeout"\} 1$/m);
  broker = false;
  t.notRegex(await registry.metrics(), /metalfleet_capacity_slots_in_use\{/, 'a node that lost the broker reports no pools');
});

test('bmo metrics - metal3_reconcile_total: a host deleted and made again before the next scrape counts every step of its new actor, though the path is the same', async (t) => {
  const registry = new Registry();
  const actors = [actor('lab~again', { processed: 40, startedAt: 1_000 })];
  const m = new BmoMetrics(registry, actorsOf(actors));
  const reconciles = async (): Promise<string> => /^metal3_reconcile_total\{namespace="lab",host="again"\} (\d+)$/m.exec(await registry.metrics())?.[1] ?? 'none';
  t.is(await reconciles(), '40');
  m.gone('lab/again');
  // Applied again at once: a new actor under the same shard and name, its own steps from 0.
  actors[0] = actor('lab~again', { processed: 3, startedAt: 2_000 });
  t.is(await reconciles(), '43');
  actors[0] = actor('lab~again', { processed: 5, startedAt: 2_000 });
  t.is(await reconciles(), '45');
});
