// Where the simulated BMC could part from real ones for the real python3-sushy (4.3, Debian 12's,
// under Ironic 21.4): BIOS @Redfish.Settings status after the reboot that applies staged settings,
// ETag/If-Match on PATCH, one-time boot overrides, power transitions, task monitors, error bodies
// (405/404/400 with @Message.ExtendedInfo), ResetActionInfo, NICs, disks, manager and chassis. The script
// test/sim/redfish/sushy_divergences.py prints one JSON line per check; this file judges them.
// A missing sushy is a failure that names it, never a skip.
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';
import { runSushyScript } from '../support/sushy-script.ts';

const SCRIPT = fileURLToPath(new URL('./redfish/sushy_divergences.py', import.meta.url));
const SHARED = 'shared-bmc-password';

test('redfish sushy divergences - what sushy reads of BIOS status, ETags, boot overrides, power, tasks, errors and inventory is what real BMCs give it', async (t) => {
  // One BMC of one system, and one account that opens two (the shared-password mode).
  const sim = await startRedfishSim({ systems: [{ id: 'me' }, { id: 'rack-1', username: 'rack', password: SHARED }, { id: 'rack-2', username: 'rack', password: SHARED }], updateMs: 1_000 });
  t.teardown(() => sim.stop());
  const me = sim.systems[0] as SimSystemInfo;
  const out = await runSushyScript(SCRIPT, [sim.url, me.systemPath, me.username, 'rack'], { SIM_PASSWORD: me.password, SHARED_PASSWORD: SHARED });
  t.false(out.includes(me.password) || out.includes(SHARED), 'no BMC password in what the script saw');
  const get = checksFrom(out);

  // Before: a BIOS whose staged settings the firmware took showed no @Redfish.Settings Time, so
  // sushy's Bios.update_status said NO_UPDATES (4) after the reboot that applied them.
  const bios = get('bios_update_status');
  const codes = bios.codes as { no_updates: number; success: number };
  t.like(bios, { before: codes.no_updates, staged: codes.no_updates, after: codes.success, time_set: true, numlock: 'Off' });
  t.deepEqual(bios.messages, [['Base.1.8.Success', 'OK']]);

  t.like(get('etag_patch'), { same_as_get: true, stale: 412, stale_message_id: 'Base.1.8.PreconditionFailed', fresh: 200, boot: ['Hdd', 'Continuous'] });
  t.like(get('boot_once'), { set: 'Once', after_boot: 'Disabled', continuous_after_boot: ['Pxe', 'Continuous'] });
  t.deepEqual(get('power_transitions').seen, [
    ['On', 'On'], ['GracefulShutdown', 'Off'], ['ForceOff', 'Off'], ['PushPowerButton', 'On'], ['PushPowerButton', 'Off'],
    ['ForceOn', 'On'], ['ForceOff', 'Off'], ['GracefulRestart', 'Off'],
  ]);

  // Before: a PATCH of a property the resource has not was PropertyNotWritable, as if it were read-only.
  t.like(get('errors'), {
    missing: { status: 404, code: 'Base.1.8.ResourceMissingAtURI' }, // sushy's HTTPError.code: the MessageId, not GeneralError
    not_allowed: { status: 405, allow: 'GET, PATCH', id: 'Base.1.8.OperationNotAllowed' },
    unknown_property: { status: 400, id: 'Base.1.8.PropertyUnknown', related: ['#/NoSuchProperty'] },
    read_only_property: { status: 400, id: 'Base.1.8.PropertyNotWritable', related: ['#/PowerState'] },
    bad_action_value: { status: 400, id: 'Base.1.8.ActionParameterValueNotInList' },
    malformed: { status: 400, id: 'Base.1.8.MalformedJSON' },
  });

  // 202 + Location, 202 while running, 200 with the Task when done; no Retry-After, which sushy
  // 4.3's TaskMonitor.sleep_for would hand to time.sleep as a string.
  t.like(get('task_monitor'), { accepted: 202, running: true, done_status: 200, state: 'Completed', status: 'OK', percent: 100, retry_after: null });
  t.regex(get('task_monitor').location as string, /^\/redfish\/v1\/TaskService\/TaskMonitors\/\d+$/);

  // Gap 1 through sushy: simple_update(url) without targets on the shared account.
  t.like(get('shared_untargeted_update'), { state: 'Completed', status: 'OK', changed: ['NIC-rack-1', 'NIC-rack-2'] });
  t.is(sim.system('me').state.firmware.NIC, '22.5.7', 'a system of another account is on another BMC');

  const macs = [...me.macs].sort();
  const inv = get('nics_and_disks');
  t.deepEqual(Object.keys(inv.summary as object).sort(), macs);
  t.true(Object.values(inv.summary as object).every((s) => s === 'Enabled'));
  t.like(inv, { simple: [480e9, 480e9, 1920e9, 1920e9], drives: [480e9, 480e9, 1920e9, 1920e9], max_drive: 1920e9, volumes: [] });
  t.like(get('reset_action_info'), { agree: true, count: 9 });
  t.like(get('manager_and_chassis'), { manager_resets: ['ForceRestart', 'GracefulRestart'], manager_type: 'BMC', chassis_systems: ['me'], chassis_managers: ['me'] });
});
