// The real python3-sushy against the simulated BMC, called the way Ironic's `redfish` driver calls
// it, one test per behaviour a real BMC has and the simulator once lacked.
// test/sim/redfish/sushy_driver.py prints one JSON line per check; this file judges.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { withSushyOverlay } from '../../src/sim/ironic/index.ts';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { RedfishSim, RedfishSimOptions, SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';
import type { Check, Checks } from '../support/python-checks.ts';

// Debian's interpreter: the one python3-sushy installs into (pyenv shims lack it).
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./redfish/sushy_driver.py', import.meta.url));
// Under CI a missing sushy is a failure that names it; elsewhere the test is skipped.
const HAVE_SUSHY = process.env.CI === 'true' || spawnSync(PYTHON, ['-c', 'import sushy'], { stdio: 'ignore' }).status === 0;
const sushyTest = HAVE_SUSHY ? test : test.skip;

type Refusal = { raised: string; status: number | null; message: string } | null;

async function started(t: { teardown(fn: () => Promise<void>): void }, options: RedfishSimOptions = { systems: 2 }) {
  const sim = await startRedfishSim(options);
  t.teardown(() => sim.stop());
  const [me, other] = sim.systems;
  if (!me || !other) throw new Error('two systems expected');
  return { sim, me, other };
}

/**
 * Runs the named checks as `me`. A check that stops at a step (`{"waiting": step}`) goes on once
 * `onStep(step)` has returned: the test acts on the simulator there, between two sushy calls.
 */
async function run(sim: RedfishSim, me: SimSystemInfo, other: SimSystemInfo, checks: string[], onStep: (step: string) => void | Promise<void> = () => undefined): Promise<Checks<Check>> {
  const env = await withSushyOverlay({ ...process.env, SIM_PASSWORD: me.password });
  const child = spawn(PYTHON, [SCRIPT, sim.url, me.systemPath, me.username, other.systemPath, checks.join(',')], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    const step = (JSON.parse(line) as { waiting?: string }).waiting;
    if (step !== undefined) {
      await onStep(step);
      child.stdin.write('go\n');
    }
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${PYTHON} ${SCRIPT} exited ${String(code)}; install python3-sushy (apt) if it is missing. stderr: ${stderr}`);
  return checksFrom(lines.filter((l) => (JSON.parse(l) as { waiting?: string }).waiting === undefined).join('\n'));
}

sushyTest('redfish sushy driver - another system is not on this BMC: sushy gets 404 (ResourceNotFoundError), whatever the auth, and its session lives on', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['other_system']))('other_system');
  for (const kind of ['basic', 'session', 'default']) {
    const refused = got[kind] as Refusal;
    t.like(refused, { raised: 'ResourceNotFoundError', status: 404 }, kind);
    t.regex(refused?.message ?? '', new RegExp(`${other.systemPath} not found`), kind);
    t.is(got[`${kind}_after`], me.id, `${kind}: the connection still opens the caller's own system`);
  }
  t.deepEqual(got.members, [me.systemPath], 'the Systems collection lists only the caller\'s system');
  t.like(got.manager, { raised: 'ResourceNotFoundError', status: 404 });
  t.like(got.chassis, { raised: 'ResourceNotFoundError', status: 404 });
  // A 401/403 makes sushy log in again; a 404 does not: one session per session-auth connection.
  t.is(got.sessions, 3);
  t.false(JSON.stringify(got).includes(me.password));
});

sushyTest('redfish sushy driver - a session idle past SessionTimeout expires: the BMC answers 401 and sushy logs in again', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const { sim, me, other } = await started(t, { systems: 2, now: () => now });
  const basic = `Basic ${Buffer.from(`${me.username}:${me.password}`).toString('base64')}`;
  const sessions = async () => ((await (await fetch(`${sim.url}/redfish/v1/SessionService/Sessions`, { headers: { authorization: basic } })).json()) as { Members: { '@odata.id': string }[] }).Members.map((m) => m['@odata.id']);
  let before: string[] = [];
  const got = (await run(sim, me, other, ['session_expiry'], async () => {
    before = await sessions();
    now += 1_801_000;
  }))('session_expiry');
  t.is(got.timeout, 1800);
  t.deepEqual(before, [got.first_uri]);
  t.like(got, { identity: me.id, renewed: true });
  t.not(got.uri, got.first_uri);
  t.deepEqual(got.members, [got.uri], 'the expired session is gone from the collection');
});

sushyTest('redfish sushy driver - virtual media is also under the ComputerSystem (Systems/<id>/VirtualMedia), the same drives its manager shows', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['system_virtual_media']))('system_virtual_media');
  t.is(got.link, `${me.systemPath}/VirtualMedia`);
  t.like(got, { members: ['Cd', 'Floppy'], types: ['CD', 'DVD'], ejected: [null, false] });
  t.deepEqual(got.inserted, [`${me.systemPath}/VirtualMedia/Cd`, 'http://images.example/deploy.iso', true]);
  t.deepEqual(got.manager_sees, ['http://images.example/deploy.iso', true], 'one drive, two paths to it');
  t.like(sim.system(me.id).state.virtualMedia.Cd, { image: null, inserted: false });
});

sushyTest('redfish sushy driver - a UefiHttp boot override takes Boot.HttpBootUri (a URL, or null for what DHCP offers), as newer sushy sends it', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['uefi_http_boot']))('uefi_http_boot');
  t.like(got, { allowed: true, shown_before: null, with_uri: ['UefiHttp', 'http://boot.example/esp.img'], cleared: ['UefiHttp', null] });
  t.like(got.bad, { raised: 'BadRequestError', status: 400 });
  t.regex((got.bad as { message: string }).message, /PropertyValueFormatError/);
  t.like(sim.system(me.id).state.boot, { target: 'UefiHttp', enabled: 'Once' });
});

sushyTest('redfish sushy driver - a GET names the methods the resource allows (Allow, DSP0266), where sushy looks before it PATCHes', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['allow_header']))('allow_header');
  t.like(got, { system: true, bios: false, bios_settings: true, virtual_media: true, system_allow: 'GET, PATCH' });
});

sushyTest('redfish sushy driver - secure boot runs only with a platform key: after DeleteAllKeys (SetupMode) the next boot is not secure', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['secure_boot_keys']))('secure_boot_keys');
  t.deepEqual(got.seen, [
    [null, true, 'UserMode', 'Enabled'],
    ['DeleteAllKeys', true, 'SetupMode', 'Disabled'],
    ['ResetAllKeysToDefault', true, 'UserMode', 'Enabled'],
  ]);
});

sushyTest('redfish sushy driver - a volume operation at an apply time the collection does not offer (OnReset) is refused and changes nothing', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['volume_apply_time']))('volume_apply_time');
  t.like(got, { supported: ['Immediate'], after_refused: 0, after: 1 });
  for (const op of ['create', 'delete'] as const) {
    t.like(got[op], { raised: 'BadRequestError', status: 400 }, op);
    t.regex((got[op] as { message: string }).message, /PropertyValueNotInList.*OnReset/s, op);
  }
  t.is(sim.system(me.id).state.volumes.length, 1);
});

// These two run whatever the environment: a missing python3-sushy fails them, naming it.
test('redfish sushy driver - a second InsertMedia into a drive that holds an image is refused (409 ResourceInUse, the specific code sushy reads), the image stays, and after EjectMedia it goes in', async (t) => {
  const { sim, me, other } = await started(t);
  const got = (await run(sim, me, other, ['virtual_media_occupied']))('virtual_media_occupied');
  const second = got.second as Refusal & { code: string };
  t.like(second, { raised: 'HTTPError', status: 409, code: 'Base.1.8.ResourceInUse' });
  t.regex(second?.message ?? '', /first\.iso.*EjectMedia/s);
  t.deepEqual(got.kept, ['http://images.example/first.iso', true]);
  t.deepEqual(got.after_eject, ['http://images.example/second.iso', true]);
  t.like(sim.system(me.id).state.virtualMedia.Cd, { image: null, inserted: false });
});

test('redfish sushy driver - a BMC that requires TransferProtocolType refuses sushy\'s first InsertMedia with Base.1.5.ActionParameterMissing; sushy retries with HTTPS and the image goes in', async (t) => {
  const { sim, me, other } = await started(t, { systems: [{ bmc: 'legacy-transfer-protocol' }, {}] });
  const got = (await run(sim, me, other, ['insert_media_transfer_protocol']))('insert_media_transfer_protocol');
  const target = `/redfish/v1/Managers/${me.id}/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia`;
  const posts = (got.posts as { path: string; data: unknown; refused?: unknown }[]).filter((p) => p.path.endsWith('VirtualMedia.InsertMedia'));
  t.deepEqual(posts, [
    { path: target, data: { Image: 'https://images.example/deploy.iso' }, refused: [400, 'Base.1.5.ActionParameterMissing'] },
    { path: target, data: { Image: 'https://images.example/deploy.iso', TransferProtocolType: 'HTTPS' } },
  ]);
  t.deepEqual(got.inserted, ['https://images.example/deploy.iso', true]);
});
