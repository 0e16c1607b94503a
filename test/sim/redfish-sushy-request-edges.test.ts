// The request edges of redfish-request-edges and redfish-image-urls as python3-sushy (4.3, Ironic
// 21.4's) meets them: a malformed system id is one quick 400 (a 500 made sushy retry for 30 s), a
// BIOS settings PATCH with a misplaced property is refused and stages nothing, and the names the BMC
// makes from image URLs carry neither credentials nor a signed query.
// test/sim/redfish/sushy_request_edges.py prints one JSON line per check. A missing sushy is a
// failure that names it, never a skip.
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';
import { runSushyScript } from '../support/sushy-script.ts';

const SCRIPT = fileURLToPath(new URL('./redfish/sushy_request_edges.py', import.meta.url));

test('redfish sushy request edges - sushy gets one quick 400 for a malformed id, a refusal for a misplaced BIOS property, and image names without secrets', async (t) => {
  const sim = await startRedfishSim({ systems: 1, updateMs: 0 });
  t.teardown(() => sim.stop());
  const me = sim.systems[0] as SimSystemInfo;
  const out = await runSushyScript(SCRIPT, [sim.url, me.systemPath, me.username], { SIM_PASSWORD: me.password });
  t.false(out.includes(me.password), 'no BMC password in what sushy saw');
  const get = checksFrom(out);

  // Before: 500 InternalError, which sushy retried ten times over 30 s before raising ServerSideError.
  const malformed = get('malformed_system_id');
  t.like(malformed, { status: 400, type: 'BadRequestError', attempts: 1 });
  t.true((malformed.seconds as number) < 3, `answered in ${String(malformed.seconds)} s`);

  // Before: 204, the Attributes staged and ApplyTime dropped without a word.
  t.like(get('bios_settings_property'), {
    misplaced: { status: 400, code: 'Base.1.8.PropertyUnknown', related: ['#/ApplyTime'] },
    pending_after_refusal: {},
    pending_after_sushy: { NumLock: 'Off' },
  });

  // Before: ImageName 'boot-1.iso?temp_url_sig=SIGSECRET&…' and the task 'SimpleUpdate fwuser:fw-pass-123@firmware.example'.
  const names = get('image_names');
  t.like(names, { image_name: 'boot-1.iso', inserted: true, task_name: 'SimpleUpdate', task_state: 'Completed' });
  t.false(JSON.stringify(names).includes('SIGSECRET') || JSON.stringify(names).includes('fw-pass-123'));
});
