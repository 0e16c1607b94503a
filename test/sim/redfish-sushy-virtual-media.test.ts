// python3-sushy (Ironic's Redfish client) sets a virtual drive's VerifyCertificate with a PATCH of
// the VirtualMedia resource (set_verify_certificate). Before, the sim had no PATCH there and
// answered 405, so the setting could not be made. A missing sushy is a failure, never a skip.
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';
import { runSushyScript } from '../support/sushy-script.ts';

const SCRIPT = fileURLToPath(new URL('./redfish/sushy_virtual_media.py', import.meta.url));

test('redfish sushy virtual media - set_verify_certificate is a PATCH the drive takes and then shows', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'vm1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const out = await runSushyScript(SCRIPT, [sim.url, a.username, a.id], { SIM_PASSWORD: a.password });
  t.false(out.includes(a.password), 'no BMC password in what the script saw');
  t.like(checksFrom(out)('verify_certificate'), { before: false, outcome: 'accepted', after: true });
});
