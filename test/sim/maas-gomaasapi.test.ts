// The simulated MAAS driven by a client we did not write: juju's Go client (gomaasapi, from Debian)
// runs juju's flow — connect, places, filtered machine reads, allocate with constraints, deploy with
// user data, owner data, bulk release, devices, files (add, list, read, anonymous URL, replace,
// delete) — and its own schema checks judge every response.
// Under CI a missing Go or gomaasapi fails the test (scripts/go-maas-install.sh installs them).
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { buildMaasflow, goMissing } from './gomaasapi/build.ts';
import { runFlow } from './gomaasapi/run.ts';
import type { FlowRun, FlowStep } from './gomaasapi/run.ts';

const missing = await goMissing();
const underCi = process.env.CI === 'true';
const withGo = missing === null || underCi ? test : test.skip;
let built: Promise<string> | undefined;

async function maasflow(): Promise<string> {
  if (missing !== null) throw new Error(`the gomaasapi test needs Go and gomaasapi: ${missing}`);
  built ??= buildMaasflow();
  return built;
}

async function simFor(t: ExecutionContext): Promise<MaasSim> {
  // Deploying long enough that polling sees it, short enough for a test.
  const sim = await startMaasSim({ deployMs: 300, releaseMs: 100 });
  t.teardown(() => sim.stop());
  return sim;
}

const FLAGS = ['-zone', 'az1', '-not-zone', 'az2', '-pool', 'default', '-tag', 'ssd', '-not-tag', 'gpu', '-cpu', '8', '-mem', '16384', '-storage-gb', '8', '-agent', 'juju-sim-test', '-series', 'jammy', '-timeout', '20s', '-poll', '50ms'];

/** Every step of juju's flow that must be there; maasflow prints more (filters) and all must be ok. */
const REQUIRED = ['connect_bad_key', 'connect', 'zones', 'pools_is_not_maas', 'resourcepools', 'domains', 'spaces', 'fabrics', 'boot_resources', 'static_routes', 'tags', 'machines', 'machines_by_hostname', 'machines_by_system_id', 'machines_by_zone', 'machines_by_tags', 'allocate_dry_run', 'allocate_interfaces_dry_run', 'allocate_no_match', 'allocate', 'machines_by_agent_name', 'start', 'wait_deployed', 'set_owner_data', 'machines_by_owner_data', 'machine_create_device', 'release_unknown', 'release', 'wait_released', 'create_device', 'devices', 'delete_device', 'files_add', 'files_list', 'files_read_listed', 'file_get', 'file_anonymous_url', 'file_replace', 'file_delete', 'file_get_missing'];

function stepOf(run: FlowRun, name: string): FlowStep {
  const step = run.steps.find((s) => s.step === name);
  if (!step) throw new Error(`maasflow printed no "${name}" step; it printed: ${run.steps.map((s) => s.step).join(', ')}`);
  return step;
}

/** A list-valued fact of a step; [] when the step has none (it failed before saying). */
function listFact(step: FlowStep, name: string): unknown[] {
  const v = step[name];
  return Array.isArray(v) ? v : [];
}

function failures(run: FlowRun): string[] {
  return run.steps.filter((s) => !s.ok).map((s) => `${s.step}: ${s.error ?? '(no error text)'}`);
}

withGo('gomaasapi - juju flow: connect, allocate with constraints, deploy with user data, owner data, bulk release', async (t) => {
  const binary = await maasflow();
  const sim = await simFor(t);
  const owned: { status?: string; owner?: string | null; ownerData?: Record<string, string>; userData?: string | null; agent?: string; power?: string } = {};
  const run = await runFlow(binary, sim.url, sim.adminKey, {
    flags: FLAGS,
    // Owner data goes at release, so look at the simulator while the machine is still deployed.
    atPause: async (step) => {
      const m = sim.machine(String(step.system_id));
      if (!m) return;
      Object.assign(owned, { status: m.status_name, owner: m.owner, ownerData: m.owner_data, userData: m.user_data, agent: m.agent_name, power: m.power_state });
    },
  });
  t.deepEqual(failures(run), [], `maasflow stderr: ${run.stderr}`);
  t.is(run.code, 0);
  t.deepEqual(REQUIRED.filter((name) => !run.steps.some((s) => s.step === name)), [], 'every step of the flow ran');

  const connect = stepOf(run, 'connect');
  // version/ answers MAAS's own version (e.g. 3.4.2), not the API's 2.0.
  t.regex(String(connect.version), /^\d+\.\d+/);
  t.true(listFact(connect, 'capabilities').includes('networks-management'));
  t.deepEqual(listFact(stepOf(run, 'zones'), 'names').slice().sort(), [...new Set([...sim.machines().map((m) => m.zone), 'default'])].sort());
  t.deepEqual(listFact(stepOf(run, 'resourcepools'), 'names').slice().sort(), [...new Set([...sim.machines().map((m) => m.pool), 'default'])].sort());

  // The allocated machine holds every constraint, by the simulator's own record of it.
  const allocated = stepOf(run, 'allocate');
  const m = sim.machine(String(allocated.system_id));
  if (!m) return t.fail(`allocate named ${String(allocated.system_id)}, which the simulator does not have`);
  t.is(m.zone, 'az1');
  t.is(m.pool, 'default');
  t.true(m.tags.includes('ssd') && !m.tags.includes('gpu'), `tags ${m.tags.join(',')}`);
  t.true(m.cpu_count >= 8 && m.memory >= 16384, `cpu ${m.cpu_count} memory ${m.memory}`);
  const storage = (allocated.storage_matches ?? {}) as Record<string, unknown>;
  t.true(Array.isArray(storage.root) && storage.root.length > 0, `constraints_by_type names a root disk: ${JSON.stringify(storage)}`);
  // dry_run picked a machine without taking it: only one machine is owned by the agent.
  t.is(owned.agent, 'juju-sim-test');

  const deployed = stepOf(run, 'wait_deployed');
  t.is(listFact(deployed, 'statuses').at(-1), 'Deployed');
  t.is(owned.status, 'Deployed');
  t.is(owned.owner, 'admin');
  t.is(owned.power, 'on');
  t.is(owned.userData, '#cloud-config\nruncmd:\n  - echo maasflow\n');
  t.deepEqual(owned.ownerData, { 'juju-model-uuid': '00000000-0000-4000-8000-000000000001', 'juju-machine-id': '0' });

  // After the bulk release the machine is on its way back (or back) and its owner data is gone.
  const after = sim.machine(m.system_id);
  t.true(after?.status_name === 'Ready' || after?.status_name === 'Releasing', `status ${after?.status_name}`);
  t.deepEqual(after?.owner_data, {});
  t.is(after?.owner, null);
  t.is(sim.machines().filter((x) => x.status_name === 'Allocated' || x.status_name === 'Deployed').length, 0, 'dry_run allocated nothing');

  // Files went through gomaasapi's own calls; the bytes round-tripped (maasflow compares them),
  // the same digest on both reads, and what is left is what the simulator holds.
  t.deepEqual(listFact(stepOf(run, 'files_list'), 'names'), ['maasflow-other', 'maasflow-state']);
  const added = String(stepOf(run, 'files_add').sha256);
  t.is(stepOf(run, 'files_read_listed').sha256, added);
  t.is(stepOf(run, 'file_get').sha256, added);
  t.regex(String(stepOf(run, 'file_get').anonymous_url), new RegExp(`^${sim.url}/api/2\\.0/files/\\?op=get_by_key&key=[0-9a-f-]{36}$`));
  t.deepEqual(listFact(stepOf(run, 'file_delete'), 'left'), ['maasflow-other']);
  t.deepEqual(sim.files().map((f) => ({ filename: f.filename, owner: f.owner, content: f.content.toString('utf8') })), [{ filename: 'maasflow-other', owner: 'admin', content: 'other content' }]);
});

withGo('gomaasapi - a non-admin user runs the same flow and owns what it allocates', async (t) => {
  const binary = await maasflow();
  const sim = await simFor(t);
  let owner: string | null | undefined;
  const run = await runFlow(binary, sim.url, sim.userKey, {
    flags: FLAGS,
    atPause: async (step) => {
      owner = sim.machine(String(step.system_id))?.owner;
    },
  });
  t.deepEqual(failures(run), [], `maasflow stderr: ${run.stderr}`);
  t.is(owner, 'user');
  t.deepEqual(sim.files().map((f) => [f.filename, f.owner]), [['maasflow-other', 'user']], "the user's files are the user's");
});

withGo('gomaasapi - a deploy the simulator is told to fail ends in Failed deployment, not Deployed', async (t) => {
  const binary = await maasflow();
  const sim = await simFor(t);
  // Only node-02..04 hold the constraints; all of them fail, so whichever is picked fails.
  sim.setFaults({ failDeployment: ['node-02', 'node-03', 'node-04'] });
  const run = await runFlow(binary, sim.url, sim.adminKey, { flags: [...FLAGS, '-timeout', '3s'] });
  const wait = stepOf(run, 'wait_deployed');
  t.false(wait.ok);
  t.true(listFact(wait, 'statuses').includes('Failed deployment'), `wait_deployed: ${JSON.stringify(wait)}`);
  t.is(run.code, 1);
});
