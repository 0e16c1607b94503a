// A node's /metrics after driving hosts through BMO's states: every metal3_* metric BMO defines,
// beside metalfleet's own, scraped over HTTP as Prometheus would.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

const PASSWORD = 'hunter2-s3cr3t-pw';
const NAMES = ['m0', 'm1', 'm2'];

// BMO's metrics.go, copied by hand: name → label names (the node adds its own `node` label).
const BMO_LABELS: Record<string, readonly string[]> = {
  metal3_reconcile_total: ['namespace', 'host'],
  metal3_reconcile_error_total: [],
  metal3_host_error_total: ['error_type'],
  metal3_operation_power_change_total: ['namespace', 'host', 'on_off'],
  metal3_credentials_missing_total: [],
  metal3_credentials_invalid_total: [],
  metal3_credentials_unhandled_error_total: [],
  metal3_credentials_updated_total: [],
  metal3_waiting_for_preprov_image_total: [],
  metal3_credentials_no_management_access_total: [],
  metal3_host_config_data_error_total: ['host_data_type'],
  metal3_delayed__provisioning_total: ['namespace', 'host'],
  metal3_delayed__deprovisioning_total: ['namespace', 'host'],
  metal3_operation_register_duration_seconds: ['namespace', 'host'],
  metal3_operation_inspect_duration_seconds: ['namespace', 'host'],
  metal3_operation_provision_duration_seconds: ['namespace', 'host'],
  metal3_operation_deprovision_duration_seconds: ['namespace', 'host'],
  metal3_provisioning_state_change_total: ['prev_state', 'new_state'],
  metal3_host_registration_required_total: [],
  metal3_host_unmanaged_total: [],
  metal3_delete_without_deprovisioning_total: [],
  metal3_delete_without_powering_off_total: [],
  metal3_provisioner_not_ready_total: [],
  metal3_delete_delayed_for_detached_total: [],
};

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

function samples(body: string): Sample[] {
  const out: Sample[] = [];
  for (const line of body.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const baseName = (name: string): string => name.replace(/_(bucket|sum|count)$/, '');

test('node metrics - /metrics carries every BMO metric with BMO labels and buckets, counts the state changes seen, and metalfleet_* beside them', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  const objects = [secret('bmc', 'lab', { username: 'admin', password: PASSWORD }), ...NAMES.map((n) => bmh(n)), bmh('nocreds', { credentialsName: 'absent' })];
  t.true((await store.applyObjects(objects, 'test')).ok);
  const provisioner = createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false });
  // A provisioner that reports its HTTP requests, as the Ironic one does.
  Object.assign(provisioner, { requests: () => [{ backend: 'ironic:ironic.lab:6385', route: 'GET /v1/nodes/{node}', status: '200', count: 7 }] });
  const node = await startLocalNode({
    name: 'metrics-node', shardCount: 8, healthPort: 0,
    machine: DEFAULT_MACHINE_CONFIG,
    // One slot for three hosts: the others wait (BMO's "delayed").
    capacity: { limits: {}, defaultLimit: 1, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources }, { provisioner }, {}, substrate);
  try {
    const provisioned = (): boolean => NAMES.every((n) => node.stats.hosts.get(`lab/${n}`)?.state === 'provisioned');
    await waitFor(provisioned, 30_000, 'three hosts provisioned');
    const scrape = async (): Promise<string> => {
      const res = await fetch(`${node.health?.url ?? ''}/metrics`);
      t.is(res.status, 200);
      return res.text();
    };
    const stepsOf = (body: string, host: string): number => Number(new RegExp(`^metal3_reconcile_total\\{namespace="lab",host="${host}",node="metrics-node"\\} (\\d+)$`, 'm').exec(body)?.[1] ?? 0);
    const stepsBeforeDelete = stepsOf(await scrape(), 'm2');
    t.true(stepsBeforeDelete > 0);
    // One host deleted: it deprovisions, so the deprovision histogram has a sample too.
    await store.requestDelete('lab/m2');
    await waitFor(() => !node.stats.hosts.has('lab/m2'), 30_000, 'lab/m2 deleted');
    await waitFor(() => !node.system.registry.list({ summary: false }).some((a) => a.name === 'lab~m2'), 30_000, 'the actor of lab/m2 stopped');
    await waitFor(() => node.stats.hosts.get('lab/nocreds')?.errorType === 'registration error', 30_000, 'nocreds waiting for its Secret');

    const body = await scrape();
    const all = samples(body);
    t.true(stepsOf(body, 'm2') > stepsBeforeDelete, 'the steps of a deleted host are counted up to its end');

    for (const [name, labels] of Object.entries(BMO_LABELS)) {
      t.regex(body, new RegExp(`^# TYPE ${name} (counter|histogram)$`, 'm'), `${name} is exported`);
      for (const s of all.filter((x) => baseName(x.name) === name)) {
        const expected = [...labels, 'node', ...(s.name.endsWith('_bucket') ? ['le'] : [])].sort();
        t.deepEqual(Object.keys(s.labels).sort(), expected, `${s.name} has BMO's labels`);
      }
    }
    t.notRegex(body, /metal3_host_provisioning_state/, 'not a BMO name: metalfleet_hosts replaces it');

    // Every transition a host actor reported, counted by prev_state/new_state.
    const changes = all.filter((s) => s.name === 'metal3_provisioning_state_change_total');
    t.is(changes.reduce((n, s) => n + s.value, 0), node.stats.transitions);
    const change = (prev: string, next: string): number => changes.find((s) => s.labels.prev_state === prev && s.labels.new_state === next)?.value ?? 0;
    t.is(change('provisioning', 'provisioned'), 3);
    t.is(change('provisioned', 'deprovisioning'), 1);
    t.true(change('', 'registering') >= 4, 'every host left the empty state for registering');

    // Histograms: BMO's buckets, one observation per finished operation.
    const les = (name: string, host: string): string[] => all.filter((s) => s.name === `${name}_bucket` && s.labels.host === host).map((s) => s.labels.le!);
    t.deepEqual(les('metal3_operation_provision_duration_seconds', 'm0'), ['30', '90', '180', '360', '720', '1440', '+Inf']);
    t.deepEqual(les('metal3_operation_register_duration_seconds', 'm0'), ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']);
    const count = (name: string, host: string): number => all.find((s) => s.name === `${name}_count` && s.labels.host === host)?.value ?? 0;
    for (const n of NAMES) t.is(count('metal3_operation_provision_duration_seconds', n), 1, `one provision of ${n}`);
    t.is(count('metal3_operation_deprovision_duration_seconds', 'm2'), 1);

    const value = (name: string, labels: Record<string, string> = {}): number => all
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((n, s) => n + s.value, 0);
    t.true(value('metal3_reconcile_total', { namespace: 'lab', host: 'm0' }) > 0, 'host actor steps count as reconciles');
    t.true(value('metal3_delayed__provisioning_total') >= 1, 'hosts that waited for the one slot were delayed');
    t.true(value('metal3_credentials_missing_total') >= 1, 'the host naming an absent Secret');
    t.is(value('metal3_host_error_total'), 0, 'a credentials problem is not a host error in BMO');
    t.true(value('metal3_operation_power_change_total', { host: 'm0', on_off: 'on' }) >= 1);

    // metalfleet's own.
    t.is(value('metalfleet_hosts', { state: 'provisioned' }), 2);
    t.is(value('metalfleet_shards_owned'), 8);
    t.regex(body, /^metalfleet_mailbox_depth\{kind="host",node="metrics-node"\} \d+$/m);
    t.regex(body, /^metalfleet_capacity_slots_in_use\{pool="fixture:default",node="metrics-node"\} \d+$/m);
    t.regex(body, /^metalfleet_capacity_waiting\{pool="fixture:default",node="metrics-node"\} \d+$/m);
    // Every freed slot went to the next waiter: no second with room beside a waiter and no grant.
    t.is(value('metalfleet_capacity_stall_seconds_total', { pool: 'fixture:default' }), 0);
    t.is(value('metalfleet_backend_requests_total', { backend: 'ironic:ironic.lab:6385', route: 'GET /v1/nodes/{node}', status: '200' }), 7);

    t.false(body.includes(PASSWORD), 'no BMC password anywhere in /metrics');
    for (const s of all) for (const v of Object.values(s.labels)) t.false(v.includes(PASSWORD));
  } finally {
    await node.stop();
  }
});
