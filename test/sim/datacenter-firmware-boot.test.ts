// What a server's firmware does with each boot target the BMC offers: the setup screen and the
// UEFI shell are where a boot stops, not ways to the installed OS.
import test from 'ava';
import { firmwareBoot } from '../../src/sim/datacenter/firmware.ts';
import type { BootTarget } from '../../src/sim/redfish/index.ts';

const boot = (target: BootTarget) => firmwareBoot({ target, mode: 'UEFI', virtualMedia: { image: null, inserted: false } }, {
  macs: ['52:54:00:bb:00:01'], bootUrl: 'http://127.0.0.1:1/boot', ironicUrl: 'http://127.0.0.1:6385', deployIsoUrls: [], diskBootable: () => true,
  fetch: () => Promise.resolve(null),
});

test('datacenter firmware - BiosSetup and UefiShell stop in the firmware: no OS boots, even from a bootable disk', async (t) => {
  for (const target of ['BiosSetup', 'UefiShell'] as const) {
    const outcome = await boot(target);
    t.is(outcome.kind, 'nothing', target);
    t.regex(outcome.detail, target === 'BiosSetup' ? /setup/ : /shell/, target);
  }
});

test('datacenter firmware - Hdd and no override boot the installed OS from a bootable disk', async (t) => {
  for (const target of ['Hdd', 'None'] as const) t.is((await boot(target)).kind, 'os', target);
});
