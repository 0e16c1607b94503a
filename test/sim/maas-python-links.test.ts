// Python's requests + requests-oauthlib (HMAC-SHA1) against the simulated MAAS's boot resources,
// a machine's link_subnet/unlink_subnet and deploy's image checks: a real third-party client
// signing the urlencoded bodies these calls send. test/sim/python/check_maas_links.py reports.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { checksFrom } from '../support/python-checks.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/check_maas_links.py', import.meta.url));

type Seen = Record<string, unknown> & { check: string; status?: number; body?: unknown };

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PYTHON} ${SCRIPT} failed (${err.message}); run scripts/python-maas-install.sh if requests_oauthlib is missing. stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

test('maas python - requests-oauthlib: boot-resources, link_subnet STATIC, unlink_subnet and deploy of a custom image', async (t) => {
  const sim = await startMaasSim({ deployMs: 60_000, bootResources: [{ name: 'custom/py-image', baseImage: 'ubuntu/jammy' }] });
  t.teardown(() => sim.stop());
  const out = await run([SCRIPT, sim.url, sim.adminKey]);
  t.false(out.includes(sim.adminKey.split(':')[2] ?? '-'), 'the script never prints a secret');
  const get = checksFrom<Seen>(out);
  t.is(get.count, 7);
  t.like(get('boot_resources_uploaded'), { status: 200, names: ['custom/py-image'] });
  t.like(get('allocate'), { status: 200, mode: 'auto' });
  const ip = String(get('link_static').ip);
  t.like(get('link_static'), { status: 200, links: [['auto', null], ['static', ip]] });
  t.like(get('unlink_auto'), { status: 200, modes: ['static'], ip_addresses: [ip] });
  t.like(get('link_in_use'), { status: 404, body: 'IP address is already in use.' });
  t.is(get('deploy_missing_image').status, 400);
  t.regex(JSON.stringify(get('deploy_missing_image').body), /'rhel\/9' is not a valid distro_series\. {2}It should be one of: '', 'custom\/py-image', 'ubuntu\/focal'/);
  t.like(get('deploy_custom'), { status: 200, osystem: 'custom', distro_series: 'py-image', hwe_kernel: 'hwe-22.04', ip_addresses: [ip] });
});
