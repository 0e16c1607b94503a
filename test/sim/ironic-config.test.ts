import test from 'ava';
import { IRONIC_21_4, installedIronicRelease, ironicConfig, ironicInstalled, parseIronicRelease } from '../../src/sim/ironic/index.ts';
import type { IronicRelease } from '../../src/sim/ironic/index.ts';

// The private Ironic's configuration as a pure function of the release it is written for.
const conf = (release: IronicRelease): string => ironicConfig('/tmp/x', 6385, {}, release);
// oslo.config's view of one option: the value of the last `key = value` line in [section].
function option(text: string, section: string, key: string): string | null {
  let current = '';
  let value: string | null = null;
  for (const line of text.split('\n')) {
    const head = /^\[(.+)\]$/.exec(line.trim());
    if (head) current = head[1] ?? '';
    const kv = /^([a-z_]+)\s*=\s*(.*)$/.exec(line.trim());
    if (kv && current === section && kv[1] === key) value = kv[2] ?? '';
  }
  return value;
}

test('parses the release from package metadata and --version output', (t) => {
  t.deepEqual(parseIronicRelease('21.4.4\n'), { major: 21, minor: 4, patch: 4 });
  t.deepEqual(parseIronicRelease('29.0.1.dev12'), { major: 29, minor: 0, patch: 1 });
  t.deepEqual(parseIronicRelease('26.1'), { major: 26, minor: 1, patch: 0 });
  t.is(parseIronicRelease('no version here'), null);
});

test('21.4: no agent inspection (it refuses to start with it), no firmware interface, require_tls left alone', (t) => {
  const c = conf({ major: 21, minor: 4, patch: 4 });
  t.is(option(c, 'DEFAULT', 'enabled_inspect_interfaces'), 'fake,redfish,no-inspect');
  t.is(option(c, 'DEFAULT', 'enabled_firmware_interfaces'), null);
  t.is(option(c, 'agent', 'require_tls'), null);
  t.is(option(c, 'DEFAULT', 'enabled_bios_interfaces'), 'fake,redfish,no-bios');
});

test('22.1: agent inspection (API 1.84) but no redfish firmware interface yet', (t) => {
  const c = conf({ major: 22, minor: 1, patch: 0 });
  t.is(option(c, 'DEFAULT', 'enabled_inspect_interfaces'), 'fake,redfish,agent,no-inspect');
  t.is(option(c, 'DEFAULT', 'enabled_firmware_interfaces'), null);
  t.is(option(c, 'agent', 'require_tls'), null);
});

test('29.0 (2025.1): redfish firmware and agent inspection enabled, plain-http agent callbacks allowed', (t) => {
  const c = conf({ major: 29, minor: 0, patch: 0 });
  t.is(option(c, 'DEFAULT', 'enabled_inspect_interfaces'), 'fake,redfish,agent,no-inspect');
  t.is(option(c, 'DEFAULT', 'enabled_firmware_interfaces'), 'fake,redfish,no-firmware');
  t.is(option(c, 'agent', 'require_tls'), 'false');
  // The rest of [agent] is still there, after the new line.
  t.is(option(c, 'agent', 'command_wait_interval'), '1');
});

test('25.x still defaults require_tls to false: the line is only written from 26.0', (t) => {
  t.is(option(conf({ major: 25, minor: 0, patch: 0 }), 'agent', 'require_tls'), null);
  t.is(option(conf({ major: 26, minor: 0, patch: 0 }), 'agent', 'require_tls'), 'false');
});

test('the installed Ironic is read from the interpreter its command runs under', async (t) => {
  // Without one, the kit's configuration stays 21.4's.
  if (!ironicInstalled()) {
    t.deepEqual(await installedIronicRelease(), IRONIC_21_4);
    return;
  }
  const r = await installedIronicRelease();
  // This machine carries Debian 12's 21.4; a newer one is at least 21.4 too.
  t.true(r.major > 21 || (r.major === 21 && r.minor >= 4), JSON.stringify(r));
});
