// The real python3-sushy (the library under Ironic's `redfish` hardware type) against the
// simulated BMC. test/sim/redfish/sushy_check.py prints one JSON line per check; this file judges.
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { withSushyOverlay } from '../../src/sim/ironic/index.ts';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';

// Debian's interpreter: the one python3-sushy installs into (pyenv shims lack it).
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./redfish/sushy_check.py', import.meta.url));
// Under CI a missing sushy is a failure that names it; elsewhere the test is skipped.
const HAVE_SUSHY = process.env.CI === 'true' || spawnSync(PYTHON, ['-c', 'import sushy'], { stdio: 'ignore' }).status === 0;

async function run(args: string[], password: string): Promise<string> {
  // Debian's sushy lacks standard_registries/, without which it reads no registry (sushy-overlay.ts).
  const env = await withSushyOverlay({ ...process.env, SIM_PASSWORD: password });
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [SCRIPT, ...args], { encoding: 'utf8', timeout: 90_000, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PYTHON} ${SCRIPT} failed (${err.message}); install python3-sushy (apt) if it is missing. stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

(HAVE_SUSHY ? test : test.skip)('redfish sushy - the real sushy drives power, boot, BIOS, virtual media, volumes, updates and secure boot', async (t) => {
  const sim = await startRedfishSim({ systems: 2, updateMs: 20 });
  t.teardown(() => sim.stop());
  const [me, other] = sim.systems;
  if (!me || !other) throw new Error('two systems expected');
  const out = await run([sim.url, me.systemPath, me.username], me.password);
  t.false(out.includes(me.password), 'the script never prints the password');
  const get = checksFrom(out);

  t.like(get('basic'), { identity: me.id, power: 'Off', uuid: me.uuid });
  t.like(get('session'), { identity: me.id, has_key: true, session_uri: '/redfish/v1/SessionService/Sessions/1', default_system: me.id });
  t.like(get('session_or_basic'), { identity: me.id });
  t.like(get('inventory'), { cpus: 64, arch: 'x86', memory_gib: 64, macs: [...me.macs].sort(), chassis: [me.id], managers: [me.id] });

  t.deepEqual(get('power').allowed, ['ForceOff', 'ForceOn', 'ForceRestart', 'GracefulRestart', 'GracefulShutdown', 'Nmi', 'On', 'PowerCycle', 'PushPowerButton']);
  t.deepEqual(get('power').seen, [
    ['On', 'On'], ['ForceOff', 'Off'], ['ForceOn', 'On'], ['GracefulRestart', 'On'], ['ForceRestart', 'On'],
    ['Nmi', 'On'], ['PushPowerButton', 'Off'], ['PowerCycle', 'On'], ['GracefulShutdown', 'Off'], ['On', 'On'],
  ]);
  t.like(get('boot'), { once: ['Pxe', 'Once', 'UEFI'], continuous: ['Hdd', 'Continuous', 'UEFI'] });
  t.true((get('boot').allowed as string[]).includes('UefiHttp'));

  t.like(get('bios'), { before: 'Enabled', pending: { ProcVirtualization: 'Disabled', BootDelaySeconds: 5 }, before_reset: 'Enabled', after_reset: 'Disabled', delay: 5, pending_after: {} });
  t.is(sim.system(me.id).state.bios.passwords.AdminPassword, 'new-secret', 'Bios.ChangePassword');
  t.true(sim.system(me.id).state.bios.resetPending, 'Bios.ResetBios waits for the next boot');
  t.like(get('bios_unknown'), { status: 400, code: 'Base.1.8.PropertyUnknown' });
  // sushy finds the registry Bios.AttributeRegistry names through /redfish/v1/Registries and parses its fields.
  const registry = get('bios_registry');
  t.like(registry, { named: 'BiosAttributeRegistrySIM1.v1_0_0', identity: 'BiosAttributeRegistrySIM1.v1_0_0', language: 'en', version: '1.0.0' });
  t.like(registry.attributes, {
    BootMode: { attribute_type: 'Enumeration', allowable_values: [{ ValueName: 'Uefi', ValueDisplayName: 'Uefi' }, { ValueName: 'Bios', ValueDisplayName: 'Bios' }], read_only: false, reset_required: true, unique: false },
    BootDelaySeconds: { attribute_type: 'Integer', lower_bound: 0, upper_bound: 60, default_value: 0 },
    SerialNumber: { attribute_type: 'String', read_only: true, unique: true, max_length: 32 },
    AssetTag: { attribute_type: 'String', min_length: 0, max_length: 16 },
    SecureBootAllowed: { attribute_type: 'Boolean', default_value: true },
    AdminPassword: { attribute_type: 'Password', min_length: 8, max_length: 32, default_value: null },
  });
  t.like(registry.refused, { status: 400 });
  t.regex((registry.refused as { message: string }).message, /PropertyValueTypeError.*BootDelaySeconds/s);

  // sushy sends @Redfish.SettingsApplyTime (Ironic asks for OnReset) and reads it back from the settings object.
  const applyTime = get('bios_apply_time');
  t.like(applyTime, { supported: ['OnReset'], apply_time: 'OnReset', allowed: ['OnReset'], immediate: { status: 400 }, pending: { NumLock: 'Off' } });
  t.regex((applyTime.immediate as { message: string }).message, /PropertyValueNotInList.*Immediate/s);
  t.false('LogicalProc' in (applyTime.pending as object), 'a refused PATCH stages nothing');

  t.like(get('virtual_media'), { members: ['Cd', 'Floppy'], types: ['CD', 'DVD'], inserted: ['http://images.example/deploy.iso', true, true], ejected: [null, false] });
  t.like(get('volumes'), { drives: 4, apply_times: ['Immediate'], created: ['1', 'RAID1', 480_000_000_000], count_after_create: 1, count_after_delete: 0 });

  const update = get('update');
  t.like(update, { task_state: 'Completed', percent: 100, tasks: 1 });
  t.deepEqual(Object.keys(update.before as object).sort(), [`BIOS-${me.id}`, `BMC-${me.id}`, `NIC-${me.id}`], 'the inventory shows the caller\'s system only');
  t.like(update.after, { [`BIOS-${me.id}`]: '2.10.2', [`BMC-${me.id}`]: '5.00.00' });
  t.is(sim.system(other.id).state.firmware.BIOS, '2.10.1', 'the other system is untouched');

  // The action offers HTTP and HTTPS only: another protocol is refused and starts no task.
  const protocol = get('update_protocol');
  t.like(protocol, { refused: { status: 400 }, tasks: 1, unchanged: true });
  t.regex((protocol.refused as { message: string }).message, /ActionParameterValueNotInList.*TFTP/s);

  t.like(get('secure_boot'), { before: false, enabled: true, mode_after_delete: 'SetupMode' });
  t.like(get('wrong_password_basic'), { raised: 'AccessError', status: 401 });
  t.like(get('wrong_password_default'), { raised: 'AccessError', status: 401 });
});
