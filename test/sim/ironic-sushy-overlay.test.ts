// Debian's python3-sushy lacks standard_registries/, so sushy (and Ironic over it) reads no
// registry a BMC publishes; the overlay on PYTHONPATH gives it the folder and nothing else.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { sushyOverlay, SYSTEM_PYTHON, withSushyOverlay } from '../../src/sim/ironic/index.ts';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';

const SCRIPT = `
import json, os, sys, sushy
from sushy import auth
s = sushy.Sushy(sys.argv[1], auth=auth.BasicAuth(username=sys.argv[2], password=os.environ['SIM_PASSWORD']))
try:
    print(json.dumps({'sushy': os.path.dirname(sushy.__file__), 'registries': sorted(k for k in s.registries if k.startswith('BiosAttributeRegistry'))}))
except Exception as exc:
    print(json.dumps({'sushy': os.path.dirname(sushy.__file__), 'error': type(exc).__name__ + ': ' + str(exc)}))
`;

async function registries(url: string, user: string, password: string, overlay: boolean): Promise<{ sushy: string; registries?: string[]; error?: string }> {
  const base = { ...process.env, SIM_PASSWORD: password };
  const env = overlay ? await withSushyOverlay(base) : base;
  const { stdout } = await promisify(execFile)(SYSTEM_PYTHON, ['-c', SCRIPT, url, user], { encoding: 'utf8', env, timeout: 60_000 });
  return JSON.parse(stdout) as { sushy: string; registries?: string[]; error?: string };
}

test('sushy overlay - with it sushy finds the BMC\'s BIOS registry; without it, Debian\'s sushy fails for want of standard_registries/', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const me = sim.systems[0];
  if (!me) throw new Error('one system expected');
  const plain = await registries(sim.url, me.username, me.password, false);
  const installedHasFolder = existsSync(join(plain.sushy, 'standard_registries'));
  const overlay = await sushyOverlay();
  t.is(overlay === null, installedHasFolder, 'an overlay exactly when the installed sushy lacks the folder');
  if (!installedHasFolder) t.regex(plain.error ?? '', /FileNotFoundError.*standard_registries/);

  const fixed = await registries(sim.url, me.username, me.password, true);
  t.is(fixed.error, undefined);
  t.deepEqual(fixed.registries, ['BiosAttributeRegistrySIM1.1.0', 'BiosAttributeRegistrySIM1.v1_0_0']);
  if (overlay !== null) t.is(fixed.sushy, join(overlay, 'sushy'), 'the overlay is the sushy imported');
});
