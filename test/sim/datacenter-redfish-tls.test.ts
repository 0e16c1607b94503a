// The simulated BMCs over HTTPS (Metal3's redfish:// and redfish-virtualmedia://): a certificate
// made at start, addresses that say https, python3-sushy with and without verification, a real
// Ironic with redfish_verify_ca=false, and `metalfleet sim redfish --tls`.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { HAVE_IRONIC, startDatacenterIronic } from './datacenter/fixture.ts';
import type { DatacenterIronic } from './datacenter/fixture.ts';
import { waitFor } from '../support/wait.ts';

const PYTHON = '/usr/bin/python3';
const SUSHY_SCRIPT = fileURLToPath(new URL('./datacenter/sushy_tls.py', import.meta.url));
const HAVE_SUSHY = process.env.CI === 'true' || spawnSync(PYTHON, ['-c', 'import sushy'], { stdio: 'ignore' }).status === 0;
const run = HAVE_IRONIC ? test : test.skip;

// python-requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override a session's verify=False
// (requests#3829), so with either set, redfish_verify_ca=false and sushy's verify=False still
// verify. Neither Ironic nor sushy here may inherit them; this worker process is this file's alone.
for (const name of ['REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE']) delete process.env[name];

let env: DatacenterIronic;
test.before(async () => {
  if (!HAVE_IRONIC) return;
  // A BMC that fails verification fails every attempt: two, a second apart, not Ironic's 5 x 4 s.
  env = await startDatacenterIronic({ systems: 2, tls: true, ironicConfig: '[redfish]\nconnection_attempts = 2\nconnection_retry_interval = 1\n' });
});
test.after.always(async () => {
  await env?.stop();
});

/** GET over HTTPS trusting only `ca`; resolves with the status code. */
function getWithCa(url: string, ca: string, auth: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { Authorization: `Basic ${Buffer.from(auth).toString('base64')}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

run('datacenter redfish tls - addresses say https and the certificate verifies 127.0.0.1 and localhost', async (t) => {
  const { redfish, systems } = env.dc;
  const sys = systems[0];
  const cert = redfish.certificate;
  if (sys === undefined || cert === null) throw new Error('a TLS system expected');
  const port = new URL(redfish.url).port;
  t.is(redfish.url, `https://127.0.0.1:${port}`);
  t.is(sys.address, `redfish://127.0.0.1:${port}/redfish/v1/Systems/${sys.id}`);
  t.is(sys.virtualMediaAddress, `redfish-virtualmedia://127.0.0.1:${port}/redfish/v1/Systems/${sys.id}`);
  t.is(sys.redfishAddress, `https://127.0.0.1:${port}`);
  t.regex(cert, /^-----BEGIN CERTIFICATE-----\n/);
  const auth = `${sys.username}:${sys.password}`;
  t.is(await getWithCa(`${redfish.url}${sys.systemPath}`, cert, auth), 200);
  t.is(await getWithCa(`https://localhost:${port}${sys.systemPath}`, cert, auth), 200);
  await t.throwsAsync(fetch(`${redfish.url}/redfish/v1`), undefined, 'a client with the default trust store refuses the self-signed certificate');
});

(HAVE_IRONIC && HAVE_SUSHY ? test : test.skip)('datacenter redfish tls - python3-sushy drives the system with verify=False, verifies with the certificate, refuses without it', async (t) => {
  const { redfish, systems } = env.dc;
  const sys = systems[1];
  if (sys === undefined || redfish.certificate === null) throw new Error('a TLS system expected');
  const dir = await mkdtemp(join(tmpdir(), 'datacenter-tls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const ca = join(dir, 'ca.pem');
  await writeFile(ca, redfish.certificate);
  const out = await new Promise<string>((resolve, reject) => {
    execFile(PYTHON, [SUSHY_SCRIPT, redfish.url, sys.systemPath, sys.username, ca], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, SIM_PASSWORD: sys.password } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${SUSHY_SCRIPT} failed (${err.message}); stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
  t.false(out.includes(sys.password));
  const seen = new Map(out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((s) => [s.check, s]));
  t.like(seen.get('unverified'), { before: 'Off', after: 'On', uuid: sys.uuid });
  t.like(seen.get('with_ca'), { identity: sys.id });
  t.like(seen.get('default_trust'), { raised: 'ConnectionError' });
  t.true(env.dc.server(sys.id).system.state.on, 'sushy\'s reset reached the simulated system');
});

run('datacenter redfish tls - Ironic with redfish_verify_ca=false powers a node over https', async (t) => {
  const { dc, api } = env;
  const sys = dc.systems[0];
  if (sys === undefined) throw new Error('a system expected');
  const system = dc.server(sys.id).system;
  const { uuid } = await api.enrol(dc, sys, { name: 'tls', boot: 'ipxe', driverInfo: { redfish_verify_ca: false } });
  await api.provision(uuid, 'manage');
  t.is((await api.waitProvision(uuid, 'manageable')).power_state, 'power off');
  await api.power(uuid, 'power on');
  await api.waitPower(uuid, 'power on');
  t.true(system.state.on);
  await api.power(uuid, 'power off');
  await api.waitPower(uuid, 'power off');
  t.false(system.state.on);
});

run('datacenter redfish tls - without redfish_verify_ca=false Ironic refuses the self-signed BMC', async (t) => {
  const { dc, api } = env;
  const sys = dc.systems[1];
  if (sys === undefined) throw new Error('a system expected');
  const { uuid } = await api.enrol(dc, sys, { name: 'tls-verified', boot: 'ipxe' });
  await api.provision(uuid, 'manage');
  const node = await api.waitNode(uuid, (n) => n.target_provision_state === null && n.last_error !== null, 'manage to fail', 60_000);
  t.is(node.provision_state, 'enroll');
  t.regex(node.last_error ?? '', /certificate|SSL/i);
});

// The command as users run it: `metalfleet sim redfish` (from source under the tests).
const METALFLEET = fileURLToPath(new URL('../../bin/metalfleet.js', import.meta.url));

test('datacenter redfish tls - metalfleet sim redfish --tls prints redfish:// addresses and the certificate, and serves HTTPS', async (t) => {
  const child = spawn(process.execPath, [METALFLEET, 'sim', 'redfish', '--tls'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(() => err.includes('-----END CERTIFICATE-----'), 30_000, 'the stderr banner with the certificate');
  const line = out.trim();
  const address = /address=(\S+)/.exec(line)?.[1] ?? '';
  t.regex(address, /^redfish:\/\/127\.0\.0\.1:\d+\/redfish\/v1\/Systems\/node-0$/);
  const cert = err.slice(err.indexOf('-----BEGIN CERTIFICATE-----'), err.indexOf('-----END CERTIFICATE-----') + '-----END CERTIFICATE-----'.length);
  const username = /username=(\S+)/.exec(line)?.[1] ?? '';
  const password = line.slice(line.indexOf(' password=') + ' password='.length);
  t.false(err.includes(password), 'stderr never carries the password');
  t.is(await getWithCa(address.replace(/^redfish:/, 'https:'), cert, `${username}:${password}`), 200);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  t.is(await exited, 0);
});
