// gomaasapi calls beyond juju's main flow (probes.go), as other users of the Go client make them:
// allocate by name, system id, architecture, pool exclusion, labelled and tagged storage and
// not_subnets; every machine's block devices, partitions and interfaces through the client's own
// lookups; a device's interfaces created with tags and an MTU, renamed, linked in each mode,
// unlinked and deleted; device filters; tags and static routes. The client's schema checks judge
// every answer; the facts each step prints are checked here.
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { buildMaasflow, goMissing } from './gomaasapi/build.ts';
import { runFlow } from './gomaasapi/run.ts';
import type { FlowStep } from './gomaasapi/run.ts';

const missing = await goMissing();
const withGo = missing === null || process.env.CI === 'true' ? test : test.skip;

const FLAGS = ['-zone', 'az1', '-not-zone', 'az2', '-pool', 'default', '-tag', 'ssd', '-not-tag', 'gpu', '-cpu', '8', '-mem', '16384', '-storage-gb', '8', '-agent', 'juju-probes', '-series', 'jammy', '-timeout', '20s', '-poll', '50ms'];

const PROBES = ['probe_allocate_by_name', 'probe_allocate_by_system_id', 'probe_allocate_arch_amd64/generic', 'probe_allocate_arch_amd64', 'probe_allocate_not_in_pool', 'probe_allocate_storage_tags', 'probe_allocate_storage_unlabelled', 'probe_allocate_not_space', 'probe_block_devices', 'probe_interfaces', 'probe_device_interfaces', 'probe_tags', 'probe_static_routes'];

withGo('gomaasapi probes - allocate variants, storage and interfaces, device NICs with tags and MTU, tags', async (t) => {
  if (missing !== null) throw new Error(`the gomaasapi test needs Go and gomaasapi: ${missing}`);
  const binary = await buildMaasflow();
  const sim = await startMaasSim({ deployMs: 300, releaseMs: 100 });
  t.teardown(() => sim.stop());
  const run = await runFlow(binary, sim.url, sim.adminKey, { flags: FLAGS });
  const step = (name: string): FlowStep => run.steps.find((s) => s.step === name) ?? { step: name, ok: false, error: 'not printed' };
  t.deepEqual(PROBES.map(step).filter((s) => !s.ok).map((s) => `${s.step}: ${s.error ?? ''}`), [], run.stderr);
  t.deepEqual(run.steps.filter((s) => !s.ok).map((s) => s.step), [], 'the rest of the flow passes too');

  // Every machine has a link in the one space: NotSpace (not_subnets=space:<name>) leaves none.
  t.like(step('probe_allocate_not_space'), { matched: false });

  const nic = step('probe_device_interfaces');
  t.like(nic.created, { name: 'eth1', tags: ['probe', 'second'], mtu: 9000, type: 'physical' });
  t.like(nic.STATIC, { mode: 'static' });
  t.regex(String((nic.STATIC as { ip?: unknown } | undefined)?.ip), /^\d+\.\d+\.\d+\.\d+$/);
  t.like(nic.DHCP, { mode: 'dhcp' });
  t.like(nic.LINK_UP, { mode: 'link_up' });
  t.true(Number(step('probe_block_devices').disks) > 0);

  // A route added through the signed client comes back through StaticRoutes(), subnets whole.
  const routes = step('probe_static_routes');
  t.like(routes, { created: true, count: 1 });
  t.like(routes.route, { metric: 7, source_vlan: true });
  t.regex(String((routes.route as { gateway_ip?: unknown } | undefined)?.gateway_ip), /\.254$/);
});

withGo('gomaasapi probes - a non-admin key passes the same probes; adding a static route is 403 for it', async (t) => {
  if (missing !== null) throw new Error(`the gomaasapi test needs Go and gomaasapi: ${missing}`);
  const binary = await buildMaasflow();
  const sim = await startMaasSim({ deployMs: 300, releaseMs: 100 });
  t.teardown(() => sim.stop());
  const run = await runFlow(binary, sim.url, sim.userKey, { flags: FLAGS });
  t.deepEqual(run.steps.filter((s) => !s.ok).map((s) => `${s.step}: ${s.error ?? ''}`), [], run.stderr);
  t.like(run.steps.find((s) => s.step === 'probe_static_routes'), { created: false, forbidden: true, count: 0 });
});
