// The simulated MAAS's images: boot-resources/ seeded with custom images, and deploy checking
// distro_series, hwe_kernel, min_hwe_kernel and enable_hw_sync against them with MAAS's own 400
// texts (forms MachineForm, utils/osystems.py get_working_kernel, validate_min_hwe_kernel).
import test from 'ava';
import type { MaasSim, MaasSimOptions } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { call, ok } from '../support/maas-http.ts';

interface Machine { system_id: string; status_name: string; osystem: string; distro_series: string; hwe_kernel: string | null; min_hwe_kernel: string; enable_hw_sync: boolean; owner: string | null }
interface Resource { id: number; type: string; name: string; architecture: string; subarches: string; title: string; base_image?: string; last_deployed: null }

async function started(t: { teardown(fn: () => Promise<void>): void }, o: MaasSimOptions = {}): Promise<MaasSim> {
  const sim = await startMaasSim({ deployMs: 60_000, ...o });
  t.teardown(() => sim.stop());
  return sim;
}

const CUSTOM = [{ name: 'custom/my-image', baseImage: 'ubuntu/jammy', title: 'My image' }, { name: 'arm-only', architecture: 'arm64/generic' }];
const allocate = async (sim: MaasSim) => ok<Machine>(await call(sim, 'POST', 'machines/', [['op', 'allocate']]));
const deploy = (sim: MaasSim, id: string, form: Array<[string, string]>) => call(sim, 'POST', `machines/${id}/`, [['op', 'deploy'], ...form]);

test('maas sim images - boot-resources/ lists the synced Ubuntu kernels and the seeded custom images, uploaded apart', async (t) => {
  const sim = await started(t, { bootResources: CUSTOM });
  const all = ok<Resource[]>(await call(sim, 'GET', 'boot-resources/'));
  t.deepEqual(all.filter((r) => r.type === 'Uploaded').map((r) => [r.name, r.architecture, r.title, r.base_image]), [
    ['arm-only', 'arm64/generic', 'arm-only', undefined],
    ['custom/my-image', 'amd64/generic', 'My image', 'ubuntu/jammy'],
  ]);
  t.deepEqual(ok<Resource[]>(await call(sim, 'GET', 'boot-resources/?type=uploaded')).map((r) => r.name), ['arm-only', 'custom/my-image']);
  t.true(ok<Resource[]>(await call(sim, 'GET', 'boot-resources/?type=synced')).every((r) => r.type === 'Synced' && r.name.startsWith('ubuntu/')));
  t.like(all.find((r) => r.name === 'ubuntu/noble' && r.architecture === 'amd64/hwe-24.04'), { subarches: 'generic,hwe-24.04', title: '24.04 LTS "Noble Numbat"', last_deployed: null });
});

test('maas sim images - a custom image deploys by custom/<name> or its bare name; osystem is not read', async (t) => {
  const sim = await started(t, { bootResources: CUSTOM });
  const a = await allocate(sim);
  t.like(ok<Machine>(await deploy(sim, a.system_id, [['distro_series', 'custom/my-image'], ['osystem', 'ubuntu']])), { status_name: 'Deploying', osystem: 'custom', distro_series: 'my-image', hwe_kernel: 'ga-22.04' });
  const b = await allocate(sim);
  // A custom image boots with its base image's kernels: hwe-22.04 is jammy's.
  t.like(ok<Machine>(await deploy(sim, b.system_id, [['distro_series', 'my-image'], ['hwe_kernel', 'hwe-22.04']])), { osystem: 'custom', distro_series: 'my-image', hwe_kernel: 'hwe-22.04' });
  const c = await allocate(sim);
  t.like(ok<Machine>(await deploy(sim, c.system_id, [['distro_series', '22.04']])), { osystem: 'ubuntu', distro_series: 'jammy' }, 'a release version names its release');
});

test('maas sim images - a release MAAS has no image for is MAAS\'s 400 listing the valid choices; nothing changes', async (t) => {
  const sim = await started(t, { bootResources: CUSTOM });
  const m = await allocate(sim);
  const r = await deploy(sim, m.system_id, [['distro_series', 'rhel/9']]);
  t.is(r.status, 400);
  t.is(r.type, 'application/json; charset=utf-8');
  // list_release_choices orders by OS title, then release title: "My image" sorts before "arm-only".
  t.deepEqual(JSON.parse(r.text), { distro_series: ["'rhel/9' is not a valid distro_series.  It should be one of: '', 'custom/my-image', 'custom/arm-only', 'ubuntu/focal', 'ubuntu/jammy', 'ubuntu/noble'."] });
  t.like(sim.machine(m.system_id), { status_name: 'Allocated', osystem: '', distro_series: '' });
});

test('maas sim images - hwe_kernel: not synced, too old, or under the machine\'s min_hwe_kernel, each with MAAS\'s text', async (t) => {
  const sim = await started(t);
  const m = await allocate(sim);
  const text = async (form: Array<[string, string]>): Promise<[number, string]> => {
    const r = await deploy(sim, m.system_id, form);
    return [r.status, r.text];
  };
  t.deepEqual(await text([['distro_series', 'jammy'], ['hwe_kernel', 'hwe-24.04']]), [400, '{"hwe_kernel": ["hwe-24.04 is not available for ubuntu/jammy on amd64/generic."]}']);
  // min_hwe_kernel is a machine field (PUT, admin), checked against the kernels MAAS has.
  const put = await call(sim, 'PUT', `machines/${m.system_id}/`, [['min_hwe_kernel', 'hwe-30.04']]);
  t.deepEqual([put.status, put.text], [400, '{"min_hwe_kernel": ["No kernel matches \\">=hwe-30.04\\" requirement."]}']);
  t.is((await call(sim, 'PUT', `machines/${m.system_id}/`, [['min_hwe_kernel', 'hwe-24.04']], sim.userKey)).status, 403);
  t.is(ok<Machine>(await call(sim, 'PUT', `machines/${m.system_id}/`, [['min_hwe_kernel', 'hwe-24.04']])).min_hwe_kernel, 'hwe-24.04');
  t.deepEqual(await text([['distro_series', 'jammy']]), [400, '{"hwe_kernel": ["jammy has no kernels available which meet min_hwe_kernel(hwe-24.04)."]}']);
  t.deepEqual(await text([['distro_series', 'noble'], ['hwe_kernel', 'ga-24.04']]), [400, '{"hwe_kernel": ["chosen kernel (ga-24.04) is older than minimal kernel required by the machine (hwe-24.04)."]}']);
  const [status, body] = await text([['distro_series', 'noble']]);
  t.is(status, 200, body);
  t.like(JSON.parse(body), { status_name: 'Deploying', distro_series: 'noble', hwe_kernel: 'hwe-24.04', min_hwe_kernel: 'hwe-24.04' });
});

test('maas sim images - enable_hw_sync is recorded, and released with the deployment', async (t) => {
  const sim = await started(t, { deployMs: 0, releaseMs: 0 });
  const m = await allocate(sim);
  t.like(ok<Machine>(await deploy(sim, m.system_id, [['distro_series', 'jammy'], ['enable_hw_sync', 'true']])), { enable_hw_sync: true });
  ok(await call(sim, 'POST', `machines/${m.system_id}/`, [['op', 'release']]));
  t.like(ok<Machine>(await call(sim, 'GET', `machines/${m.system_id}/`)), { enable_hw_sync: false, hwe_kernel: null, owner: null });
});
