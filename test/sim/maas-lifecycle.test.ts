// Deploy, release, power and the fault knobs of the simulated MAAS (capmaas.md §4), driven over
// raw HTTP with PLAINTEXT OAuth written here, on a clock the test moves by hand.
import test from 'ava';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';
import { SELF_POWER_OFF_MS, startMaasSim } from '../../src/sim/maas/index.ts';
import type { Answer } from '../support/maas-http.ts';
import { call, manualClock as startedClock } from '../support/maas-http.ts';

// The clock starts at 0 here: the expectations below read times from it.
const manualClock = () => startedClock(0);

interface MachineJson {
  system_id: string;
  hostname: string;
  status: number;
  status_name: string;
  power_state: string;
  owner: string | null;
  ip_addresses: string[];
  osystem: string;
  distro_series: string;
  ephemeral_deploy: boolean;
  zone: { id: number; name: string };
}

function machine(a: Answer): MachineJson {
  return JSON.parse(a.text) as MachineJson;
}

async function started(t: { teardown(fn: () => Promise<void>): void }, o: MaasSimOptions = {}): Promise<MaasSim> {
  const sim = await startMaasSim(o);
  t.teardown(() => sim.stop());
  return sim;
}

function idOf(sim: MaasSim, hostname: string): string {
  const m = sim.machine(hostname);
  if (!m) throw new Error(`no machine ${hostname}`);
  return m.system_id;
}

/** Polls cond with a deadline; never a fixed sleep. */
async function eventually(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: still false after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const allocate = async (sim: MaasSim, form: Array<[string, string]> = [], key?: string) => machine(await call(sim, 'POST', 'machines/', [['op', 'allocate'], ...form], key));
const deploy = (sim: MaasSim, id: string, form: Array<[string, string]> = [], key?: string) => call(sim, 'POST', `machines/${id}/`, [['op', 'deploy'], ...form], key);
const release = (sim: MaasSim, id: string, form: Array<[string, string]> = [], key?: string) => call(sim, 'POST', `machines/${id}/`, [['op', 'release'], ...form], key);

test('maas sim - deployMs 0: deploy answers Deploying, the machine is Deployed on the next tick', async (t) => {
  const sim = await started(t, { deployMs: 0 });
  const m = await allocate(sim, [['zone', 'az2']]);
  const r = await deploy(sim, m.system_id, [['distro_series', 'jammy'], ['user_data', Buffer.from('#cloud-config\n').toString('base64')]]);
  t.is(r.status, 200, r.text);
  t.like(machine(r), { status: 9, status_name: 'Deploying', power_state: 'on' });
  await eventually(() => sim.machine(m.system_id)?.status_name === 'Deployed', 'Deployed');
  const read = machine(await call(sim, 'GET', `machines/${m.system_id}/`));
  t.like(read, { status: 6, status_name: 'Deployed', power_state: 'on', owner: 'admin', osystem: 'ubuntu', distro_series: 'jammy' });
});

test('maas sim - deploy on a manual clock: Deploying until deployMs has passed; OS, user data and a zone IP recorded', async (t) => {
  const clock = manualClock();
  // The custom image CAPMAAS's README deploys, uploaded: MAAS deploys only images it has.
  const sim = await started(t, { clock, deployMs: 1000, bootResources: [{ name: 'u-2204-0-k-1256-0' }] });
  const m = await allocate(sim, [['zone', 'az1']]);
  t.like(m, { status_name: 'Allocated', power_state: 'off', ip_addresses: [] });
  const userData = '#cloud-config\nruncmd: [kubeadm join]\n';
  const r = await deploy(sim, m.system_id, [
    ['distro_series', 'u-2204-0-k-1256-0'], ['ephemeral_deploy', 'true'], ['osystem', 'custom'],
    ['user_data', Buffer.from(userData).toString('base64')],
  ]);
  const deploying = machine(r);
  t.like(deploying, { status: 9, status_name: 'Deploying', power_state: 'on', osystem: 'custom', distro_series: 'u-2204-0-k-1256-0', ephemeral_deploy: true });
  t.is(deploying.ip_addresses.length, 1);
  t.true(deploying.ip_addresses[0]?.startsWith(`10.10.${deploying.zone.id}.`));
  t.is(sim.machine(m.system_id)?.user_data, userData);
  clock.advance(999);
  t.is(sim.machine(m.system_id)?.status_name, 'Deploying');
  clock.advance(1);
  t.like(sim.machine(m.system_id), { status: 6, status_name: 'Deployed', power_state: 'on' });
  // Two machines in one zone never share an address.
  const other = await allocate(sim, [['zone', 'az1']]);
  const second = machine(await deploy(sim, other.system_id));
  t.not(second.ip_addresses[0], deploying.ip_addresses[0]);
  t.like(second, { osystem: 'ubuntu', distro_series: 'noble' }, 'the default series when none is named');
});

test('maas sim - deploy allocates a Ready machine first; only Ready or Allocated machines deploy', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 10, machines: [
    { hostname: 'ready', cpuCount: 4, memoryMb: 8192 },
    { hostname: 'fresh', cpuCount: 4, memoryMb: 8192, status: 'New' },
  ] });
  const id = idOf(sim, 'ready');
  const first = machine(await deploy(sim, id, [], sim.userKey));
  t.like(first, { status_name: 'Deploying', owner: 'user' });
  const again = await deploy(sim, id, [], sim.userKey);
  t.is(again.status, 409);
  t.is(again.text, "Can't deploy a machine that is in the 'Deploying' state");
  clock.advance(10);
  const deployed = await deploy(sim, id, [], sim.userKey);
  t.is(deployed.status, 409);
  t.is(deployed.text, "Can't deploy a machine that is in the 'Deployed' state");
  const fresh = await deploy(sim, idOf(sim, 'fresh'));
  t.is(fresh.status, 409);
  t.is(fresh.text, "Can't deploy a machine that is in the 'New' state");
});

test("maas sim - deploying another user's machine is 403: a non-admin may not edit it", async (t) => {
  const sim = await started(t, { deployMs: 0 });
  const mine = await allocate(sim, [], sim.adminKey);
  const r = await deploy(sim, mine.system_id, [], sim.userKey);
  t.is(r.status, 403);
  t.is(r.text, '');
  t.is(sim.machine(mine.system_id)?.status_name, 'Allocated');
  // Release and power on are the owner's (or an admin's) too: the other user gets 403.
  t.is((await release(sim, mine.system_id, [], sim.userKey)).status, 403);
  t.is((await call(sim, 'POST', `machines/${mine.system_id}/op-power_on`, undefined, sim.userKey)).status, 403);
});

test('maas sim - failDeployment fault: Deploying → Failed deployment, which cannot be redeployed', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 100, faults: { failDeployment: ['node-02'] } });
  const id = idOf(sim, 'node-02');
  t.is(machine(await deploy(sim, id)).status_name, 'Deploying');
  clock.advance(100);
  t.like(sim.machine(id), { status: 11, status_name: 'Failed deployment' });
  const again = await deploy(sim, id);
  t.is(again.status, 409);
  t.is(again.text, "Can't deploy a machine that is in the 'Failed deployment' state");
  // A predicate works too, and a released machine is usable again.
  sim.setFaults({ failDeployment: (_id, hostname) => hostname === 'node-05' });
  t.is(machine(await release(sim, id)).status_name, 'Releasing');
  clock.advance(200);
  t.is(sim.machine(id)?.status_name, 'Ready');
  t.is(machine(await deploy(sim, id)).status_name, 'Deploying');
  const five = idOf(sim, 'node-05');
  await deploy(sim, five);
  clock.advance(100);
  t.is(sim.machine(id)?.status_name, 'Deployed');
  t.is(sim.machine(five)?.status_name, 'Failed deployment');
});

test('maas sim - release of a running machine: Releasing, then Ready after releaseMs with nothing left of the deployment', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 5, releaseMs: 200 });
  const m = await allocate(sim);
  await deploy(sim, m.system_id, [['user_data', Buffer.from('hello').toString('base64')], ['distro_series', 'jammy']]);
  clock.advance(5);
  const r = await release(sim, m.system_id);
  t.is(r.status, 200);
  t.like(machine(r), { status: 12, status_name: 'Releasing' });
  clock.advance(199);
  t.is(sim.machine(m.system_id)?.status_name, 'Releasing');
  t.is(machine(await release(sim, m.system_id)).status_name, 'Releasing', 'releasing again is a no-op');
  clock.advance(1);
  t.like(sim.machine(m.system_id), {
    status: 4, status_name: 'Ready', power_state: 'off', owner: null, osystem: '', distro_series: '', ip_addresses: [], user_data: null, ephemeral_deploy: false,
  });
  t.is(machine(await release(sim, m.system_id)).status_name, 'Ready', 'releasing a Ready machine is a no-op');
});

test('maas sim - release with erase, or with erasing on release enabled, goes through Disk erasing', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 5, releaseMs: 50 });
  const m = await allocate(sim);
  const r = await release(sim, m.system_id, [['erase', 'true']]);
  t.like(machine(r), { status: 14, status_name: 'Disk erasing' });
  clock.advance(50);
  t.like(sim.machine(m.system_id), { status_name: 'Ready', owner: null, power_state: 'off' });

  const global = await started(t, { clock, deployMs: 5, releaseMs: 50, eraseOnRelease: true });
  const g = await allocate(global);
  await deploy(global, g.system_id);
  clock.advance(5);
  t.is(machine(await release(global, g.system_id)).status_name, 'Disk erasing');
  clock.advance(50);
  t.is(global.machine(g.system_id)?.status_name, 'Ready');
});

test('maas sim - release of a powered-off machine goes straight to Ready; a New one is 409', async (t) => {
  const sim = await started(t, { machines: [
    { hostname: 'a', cpuCount: 2, memoryMb: 2048 },
    { hostname: 'b', cpuCount: 2, memoryMb: 2048, status: 'New' },
  ] });
  const m = await allocate(sim);
  const r = await release(sim, m.system_id);
  t.like(machine(r), { status: 4, status_name: 'Ready', owner: null });
  const fresh = await release(sim, idOf(sim, 'b'));
  t.is(fresh.status, 409);
  t.is(fresh.text, "Machine cannot be released in its current state ('New').");
});

test('maas sim - power_on: 409 unless allocated; a Deployed machine stays Deployed and comes back on', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 10 });
  const ready = idOf(sim, 'node-04');
  const refused = await call(sim, 'POST', `machines/${ready}/op-power_on`);
  t.is(refused.status, 409);
  t.is(refused.text, "Can't start node: it hasn't been allocated.");
  t.is((await call(sim, 'POST', `machines/${ready}/`, [['op', 'power_on']])).status, 409);

  const m = await allocate(sim);
  await deploy(sim, m.system_id);
  clock.advance(10);
  sim.powerOff(m.system_id);
  t.like(sim.machine(m.system_id), { status_name: 'Deployed', power_state: 'off' });
  const on = await call(sim, 'POST', `machines/${m.system_id}/op-power_on`);
  t.is(on.status, 200);
  t.like(machine(on), { status: 6, status_name: 'Deployed', power_state: 'on' });
});

test('maas sim - powerOffAfterDeploy fault: the machine turns itself off once, shortly after deploying', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 100, faults: { powerOffAfterDeploy: ['node-08'] } });
  const id = idOf(sim, 'node-08');
  await deploy(sim, id);
  clock.advance(100);
  t.like(sim.machine(id), { status_name: 'Deployed', power_state: 'on' });
  clock.advance(SELF_POWER_OFF_MS);
  t.like(sim.machine(id), { status_name: 'Deployed', power_state: 'off' });
  await call(sim, 'POST', `machines/${id}/op-power_on`);
  clock.advance(10 * SELF_POWER_OFF_MS);
  t.is(sim.machine(id)?.power_state, 'on', 'only once');
});

test('maas sim - broken fault: the machine is Broken, and the allocator that still saw it Ready gets Invalid transition', async (t) => {
  const sim = await started(t, { machines: [
    { hostname: 'cheap', cpuCount: 2, memoryMb: 2048 },
    { hostname: 'dear', cpuCount: 8, memoryMb: 16384 },
  ] });
  sim.setFaults({ broken: ['cheap'] });
  t.like(sim.machine('cheap'), { status: 8, status_name: 'Broken' });
  const r = await call(sim, 'POST', 'machines/', [['op', 'allocate']]);
  t.is(r.status, 409);
  t.is(r.text, 'Invalid transition: Broken -> Allocated.');
  t.is(sim.machine('cheap')?.status_name, 'Broken');
  const next = await allocate(sim);
  t.is(next.hostname, 'dear');
  const d = await deploy(sim, idOf(sim, 'cheap'));
  t.is(d.status, 409);
  t.is(d.text, "Can't deploy a machine that is in the 'Broken' state");
  // Broken is releasable; it comes back Ready.
  t.is(machine(await release(sim, idOf(sim, 'cheap'))).status_name, 'Ready');
});

test('maas sim - counts: machines Deploying now, the high-water mark, requests by route; resetCounts', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, deployMs: 100 });
  for (const host of ['node-01', 'node-02', 'node-03']) await deploy(sim, idOf(sim, host));
  t.like(sim.counts(), { deploying: 3, maxDeploying: 3, requests: 3 });
  clock.advance(100);
  await deploy(sim, idOf(sim, 'node-04'));
  const c = sim.counts();
  t.like(c, { deploying: 1, maxDeploying: 3, requests: 4 });
  t.is(c.byRoute['POST machines/{id}/ op=deploy'], 4);
  sim.resetCounts();
  t.like(sim.counts(), { deploying: 1, maxDeploying: 1, requests: 0, byRoute: {} });
  await call(sim, 'GET', 'machines/');
  t.deepEqual(sim.counts().byRoute, { 'GET machines/': 1 });
});

test('maas sim - serverErrorRate: a request is 503 when the injected random falls under the rate', async (t) => {
  const draws = [0.1, 0.9, 0.49, 0.5];
  const sim = await started(t, { faults: { serverErrorRate: 0.5, random: () => draws.shift() ?? 0.99 } });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await call(sim, 'GET', 'machines/')).status);
  t.deepEqual(statuses, [503, 200, 503, 200, 200]);
  sim.setFaults({ serverErrorRate: 1 });
  const r = await call(sim, 'POST', 'machines/', [['op', 'allocate']]);
  t.is(r.status, 503);
  t.true(sim.machines().every((m) => m.owner === null), 'a 503 changes nothing');
  sim.setFaults({ serverErrorRate: 0 });
  t.is((await call(sim, 'GET', 'machines/')).status, 200);
  t.throws(() => sim.setFaults({ serverErrorRate: 2 }), { instanceOf: RangeError });
});

test('maas sim - latencyMs delays every answer on the simulator clock', async (t) => {
  const clock = manualClock();
  const sim = await started(t, { clock, faults: { latencyMs: 250 } });
  let answered = false;
  const pending = call(sim, 'GET', 'machines/').then((a) => {
    answered = true;
    return a;
  });
  await eventually(() => sim.counts().requests === 1, 'request arrived');
  clock.advance(249);
  await new Promise((resolve) => setImmediate(resolve));
  t.false(answered);
  clock.advance(1);
  t.is((await pending).status, 200);
});

test('maas sim - no free address in the zone: deploy is 503 and the machine is left as it was', async (t) => {
  // A zone limited to 241 addresses (one /24's .10 to .250), all held by deployed machines here.
  const holders = Array.from({ length: 241 }, (_, i) => ({ hostname: `h${i}`, zone: 'tiny', cpuCount: 1, memoryMb: 1024, status: 'Deployed' as const }));
  const sim = await started(t, { zoneAddresses: 241, machines: [...holders, { hostname: 'late', zone: 'tiny', cpuCount: 1, memoryMb: 1024 }] });
  const id = idOf(sim, 'late');
  const r = await deploy(sim, id);
  t.is(r.status, 503);
  t.is(r.text, `${id}: Unable to allocate static IP due to address exhaustion.`);
  t.like(sim.machine(id), { status_name: 'Ready', owner: null });
});

test('maas sim - a zone goes on into the next /24 when one fills, so large fleets deploy', async (t) => {
  const holders = Array.from({ length: 241 }, (_, i) => ({ hostname: `h${i}`, zone: 'big', cpuCount: 1, memoryMb: 1024, status: 'Deployed' as const }));
  const sim = await started(t, { machines: [...holders, { hostname: 'late', zone: 'big', cpuCount: 1, memoryMb: 1024 }] });
  const id = idOf(sim, 'late');
  const r = await deploy(sim, id);
  t.is(r.status, 200);
  t.regex(sim.machine(id)?.ip_addresses[0] ?? '', /^10\.11\.\d+\.10$/);
});
