// `metalfleet sim maas`: the variables it prints, the seed file, and a clean exit on SIGTERM.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Running {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(...args: string[]): Running {
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'sim', 'maas', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    const parts = out.split('\n');
    out = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, stderr: () => err, exited };
}

async function linesWithin(r: Running, count: number, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  while (r.lines.length < count) {
    if (r.child.exitCode !== null) throw new Error(`exited ${r.child.exitCode} before printing ${count} lines: ${r.stderr()}`);
    if (Date.now() > deadline) throw new Error(`no ${count} lines after ${timeoutMs} ms: ${r.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return r.lines.slice(0, count);
}

// A fresh nonce each time: MAAS (and the simulator) refuse a nonce it has seen with 401.
function plaintext(key: string): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  return `OAuth oauth_consumer_key="${ck}", oauth_token="${tk}", oauth_signature_method="PLAINTEXT", oauth_signature="%26${ts}", oauth_timestamp="${Math.floor(Date.now() / 1000)}", oauth_nonce="${randomUUID()}"`;
}

async function tempDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'maas-sim-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('maas sim - the CLI prints MAAS_ENDPOINT and the keys, serves the API and exits 0 on SIGTERM', async (t) => {
  const r = run('--deploy-ms', '10');
  t.teardown(() => {
    if (r.child.exitCode === null) r.child.kill('SIGKILL');
  });
  const [endpoint = '', admin = '', user = ''] = await linesWithin(r, 3);
  t.regex(endpoint, /^MAAS_ENDPOINT=http:\/\/127\.0\.0\.1:\d+\/MAAS$/);
  t.regex(admin, /^MAAS_API_KEY=[0-9a-f]+:[0-9a-f]+:[0-9a-f]+$/);
  t.regex(user, /^MAAS_USER_API_KEY=[0-9a-f]+:[0-9a-f]+:[0-9a-f]+$/);
  const url = endpoint.slice('MAAS_ENDPOINT='.length);
  const key = admin.slice('MAAS_API_KEY='.length);
  const res = await fetch(`${url}/api/2.0/machines/`, { headers: { Authorization: plaintext(key) } });
  t.is(res.status, 200);
  t.true(((await res.json()) as unknown[]).length >= 10);
  r.child.kill('SIGTERM');
  t.deepEqual(await r.exited, { code: 0, signal: null });
  t.is(r.lines.length, 3, 'nothing else on stdout');
});

test('maas sim - the CLI also stops cleanly on SIGINT', async (t) => {
  const r = run();
  t.teardown(() => {
    if (r.child.exitCode === null) r.child.kill('SIGKILL');
  });
  await linesWithin(r, 3);
  r.child.kill('SIGINT');
  t.deepEqual(await r.exited, { code: 0, signal: null });
});

test('maas sim - --seed takes a YAML or JSON list of machines', async (t) => {
  const dir = await tempDir(t);
  const yamlFile = join(dir, 'fleet.yaml');
  await writeFile(yamlFile, '- hostname: edge-1\n  zone: rack-a\n  cpuCount: 4\n  memoryMb: 8192\n  tags: [arm, small]\n- hostname: edge-2\n  cpuCount: 8\n  memoryMb: 16384\n  status: New\n');
  const jsonFile = join(dir, 'fleet.json');
  await writeFile(jsonFile, JSON.stringify([{ hostname: 'j1', cpuCount: 2, memoryMb: 2048, pool: 'batch' }]));
  for (const [file, expected] of [[yamlFile, ['edge-1:rack-a:Ready', 'edge-2:default:New']], [jsonFile, ['j1:default:Ready']]] as const) {
    const r = run('--seed', file);
    t.teardown(() => {
      if (r.child.exitCode === null) r.child.kill('SIGKILL');
    });
    const [endpoint = '', admin = ''] = await linesWithin(r, 2);
    const res = await fetch(`${endpoint.slice('MAAS_ENDPOINT='.length)}/api/2.0/machines/`, { headers: { Authorization: plaintext(admin.slice('MAAS_API_KEY='.length)) } });
    const machines = (await res.json()) as Array<{ hostname: string; zone: { name: string }; status_name: string }>;
    t.deepEqual(machines.map((m) => `${m.hostname}:${m.zone.name}:${m.status_name}`), [...expected]);
    r.child.kill('SIGTERM');
    t.is((await r.exited).code, 0);
  }
});

test('maas sim - a bad seed file stops the CLI with exit 1 and names the file and the field', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'bad.yaml');
  await writeFile(file, '- hostname: ok-1\n  cpuCount: 4\n  memoryMb: 8192\n- hostname: bad host\n  cpuCount: four\n  memoryMb: 8192\n');
  const r = run('--seed', file);
  const { code } = await r.exited;
  t.is(code, 1);
  t.deepEqual(r.lines, []);
  t.true(r.stderr().includes(`${file}: [1].hostname:`), r.stderr());
  t.true(r.stderr().includes(`${file}: [1].cpuCount:`), r.stderr());

  const missing = run('--seed', join(dir, 'nope.yaml'));
  t.is((await missing.exited).code, 1);
  t.regex(missing.stderr(), /--seed \S*nope\.yaml: cannot read: no such file/);

  const notList = join(dir, 'map.yaml');
  await writeFile(notList, 'machines: []\n');
  const mapped = run('--seed', notList);
  t.is((await mapped.exited).code, 1);
  t.true(mapped.stderr().includes(`${notList}: expected a list of machines`), mapped.stderr());
});

test('maas sim - --machine seeds machines from flags; a bad one is refused naming the field', async (t) => {
  const r = run('--machine', 'hostname=big1,zone=az9,pool=gpu,tags=gpu+nvme,cpu=32,memory=262144', '--machine', 'hostname=small1,cpu=2,memory=4096');
  t.teardown(() => {
    if (r.child.exitCode === null) r.child.kill('SIGKILL');
  });
  const [endpoint = '', admin = ''] = await linesWithin(r, 2);
  const res = await fetch(`${endpoint.slice('MAAS_ENDPOINT='.length)}/api/2.0/machines/`, { headers: { Authorization: plaintext(admin.slice('MAAS_API_KEY='.length)) } });
  const machines = (await res.json()) as Array<{ hostname: string; zone: { name: string }; pool: { name: string }; tag_names: string[]; cpu_count: number; memory: number }>;
  t.deepEqual(machines.map((m) => `${m.hostname}:${m.zone.name}:${m.pool.name}:${m.tag_names.join('+')}:${m.cpu_count}:${m.memory}`), ['big1:az9:gpu:gpu+nvme:32:262144', 'small1:default:default::2:4096']);
  r.child.kill('SIGTERM');
  t.is((await r.exited).code, 0);

  const unknown = run('--machine', 'hostname=x,cores=4');
  t.is((await unknown.exited).code, 2);
  t.regex(unknown.stderr(), /--machine #1: unknown field "cores"/);
  const bad = run('--machine', 'hostname=x,cpu=many,memory=1024');
  t.is((await bad.exited).code, 2);
  t.regex(bad.stderr(), /--machine #1: cpu: expected a whole number, got "many"/);
});

test('maas sim - --machine without --fleet says at start that its machines replace the default fleet', async (t) => {
  const r = run('--machine', 'hostname=h1,cpu=8,memory=16384');
  t.teardown(() => {
    if (r.child.exitCode === null) r.child.kill('SIGKILL');
  });
  await linesWithin(r, 3);
  const deadline = Date.now() + 10_000;
  while (!r.stderr().includes('Ctrl-C') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(r.stderr(), 'metalfleet sim maas: 1 machine in zones default (from --machine, instead of the default fleet); stop with Ctrl-C\n');
  r.child.kill('SIGTERM');
  t.is((await r.exited).code, 0);
});

interface Endpoint {
  url: string;
  key: string;
}

async function endpointOf(r: Running): Promise<Endpoint> {
  const [endpoint = '', admin = ''] = await linesWithin(r, 2);
  return { url: `${endpoint.slice('MAAS_ENDPOINT='.length)}/api/2.0/`, key: admin.slice('MAAS_API_KEY='.length) };
}

function killOnTeardown(t: { teardown(fn: () => void): void }, r: Running): Running {
  t.teardown(() => {
    if (r.child.exitCode === null) r.child.kill('SIGKILL');
  });
  return r;
}

async function api(e: Endpoint, method: string, path: string, form?: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await fetch(e.url + path, {
    method,
    headers: { Authorization: plaintext(e.key), ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // MAAS answers errors as text/plain: keep the text
  }
  return { status: res.status, body };
}

type MachineRow = { system_id: string; hostname: string; status_name: string };

async function machineNamed(e: Endpoint, hostname: string): Promise<MachineRow> {
  const { body } = await api(e, 'GET', 'machines/');
  const m = (body as MachineRow[]).find((x) => x.hostname === hostname);
  if (!m) throw new Error(`no machine ${hostname} in ${JSON.stringify(body)}`);
  return m;
}

async function statusWithin(e: Endpoint, hostname: string, want: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while ((last = (await machineNamed(e, hostname)).status_name) !== want) {
    if (Date.now() > deadline) throw new Error(`${hostname}: still ${last}, not ${want}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function deploy(e: Endpoint, hostname: string): Promise<string> {
  const allocated = await api(e, 'POST', 'machines/?op=allocate', { name: hostname });
  if (allocated.status !== 200) throw new Error(`allocate ${hostname}: ${allocated.status} ${JSON.stringify(allocated.body)}`);
  const id = (allocated.body as MachineRow).system_id;
  const deployed = await api(e, 'POST', `machines/${id}/?op=deploy`, { distro_series: 'jammy' });
  if (deployed.status !== 200) throw new Error(`deploy ${hostname}: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  return id;
}

const TWO = '- hostname: keep-1\n  cpuCount: 4\n  memoryMb: 8192\n  zone: rack-a\n  tags: [ssd]\n- hostname: keep-2\n  cpuCount: 8\n  memoryMb: 16384\n';

test('maas sim - --save writes the fleet on SIGTERM and --fleet loads it back, deployed machines still deployed', async (t) => {
  const dir = await tempDir(t);
  const fleet = join(dir, 'fleet.yaml');
  const saved = join(dir, 'saved.yaml');
  await writeFile(fleet, TWO);
  const first = killOnTeardown(t, run('--fleet', fleet, '--save', saved, '--deploy-ms', '10'));
  const e1 = await endpointOf(first);
  const id = await deploy(e1, 'keep-1');
  await statusWithin(e1, 'keep-1', 'Deployed');
  t.is((await api(e1, 'POST', `machines/${id}/?op=set_owner_data`, { 'juju-model-uuid': 'm-1' })).status, 200);
  first.child.kill('SIGTERM');
  t.is((await first.exited).code, 0);
  t.regex(first.stderr(), /saved 2 machines to .*saved\.yaml/);

  const again = killOnTeardown(t, run('--fleet', saved));
  const e2 = await endpointOf(again);
  const { body } = await api(e2, 'GET', 'machines/');
  const rows = body as Array<MachineRow & { zone: { name: string }; tag_names: string[]; cpu_count: number }>;
  t.deepEqual(rows.map((m) => `${m.hostname}:${m.zone.name}:${m.tag_names.join('+')}:${m.cpu_count}:${m.status_name}`), ['keep-1:rack-a:ssd:4:Deployed', 'keep-2:default::8:Ready']);
  // The same machine, not a look-alike: its system_id, owner and owner data came back too.
  const back = (await api(e2, 'GET', `machines/${id}/`)).body as { owner: string | null; owner_data: Record<string, string>; distro_series: string };
  t.like(back, { owner: 'admin', owner_data: { 'juju-model-uuid': 'm-1' }, distro_series: 'jammy' });
  again.child.kill('SIGINT');
  t.is((await again.exited).code, 0);
});

test('maas sim - --fleet F --save F starts from the default fleet when F is missing, and keeps it across runs', async (t) => {
  const dir = await tempDir(t);
  const state = join(dir, 'state.yaml');
  const first = killOnTeardown(t, run('--fleet', state, '--save', state));
  const e1 = await endpointOf(first);
  t.is(((await api(e1, 'GET', 'machines/')).body as unknown[]).length, 12);
  t.regex(first.stderr(), /state\.yaml is missing: the default fleet/);
  first.child.kill('SIGTERM');
  t.is((await first.exited).code, 0);

  const second = killOnTeardown(t, run('--seed', state, '--save', state));
  const e2 = await endpointOf(second);
  t.is(((await api(e2, 'GET', 'machines/')).body as unknown[]).length, 12);
  second.child.kill('SIGTERM');
  t.is((await second.exited).code, 0);

  // A --save that could not be written at the stop is refused at the start.
  const unwritable = run('--save', join(dir, 'no-such-folder', 'state.yaml'));
  t.is((await unwritable.exited).code, 1);
  t.regex(unwritable.stderr(), /--save .*no-such-folder.*state\.yaml: its folder cannot be written \(ENOENT\)/);
  t.deepEqual(unwritable.lines, []);

  // Without --save naming it, a missing fleet file is an error, as before.
  const strict = run('--fleet', join(dir, 'absent.yaml'));
  t.is((await strict.exited).code, 1);
  t.regex(strict.stderr(), /--fleet \S*absent\.yaml: cannot read: no such file/);
});

test('maas sim - --api-key fixes the admin key; a malformed one is refused without being echoed', async (t) => {
  const key = 'AbCdEfGhIjKlMnOpQr:StUvWxYz0123456789:abcdefghijklmnopqrstuvwxyz012345';
  const r = killOnTeardown(t, run('--api-key', key));
  const e = await endpointOf(r);
  t.is(e.key, key);
  t.is((await api(e, 'GET', 'machines/')).status, 200);
  t.is((await api({ ...e, key: 'AbCdEfGhIjKlMnOpQr:StUvWxYz0123456789:wrongwrongwrongwrongwrongwrong00' }, 'GET', 'machines/')).status, 401);
  r.child.kill('SIGTERM');
  t.is((await r.exited).code, 0);

  for (const bad of ['only:two', 'a:b:c:d', 'has space:tok:secretsecret', 'ck:tk:s3cr=t-value']) {
    const refused = run('--api-key', bad);
    t.is((await refused.exited).code, 2, bad);
    t.regex(refused.stderr(), /--api-key: expected CONSUMER_KEY:TOKEN_KEY:TOKEN_SECRET/);
    t.false(refused.stderr().includes(bad), `the key is not echoed: ${refused.stderr()}`);
    t.deepEqual(refused.lines, []);
  }
});

test('maas sim - fault knobs: --fail-deploy, --broken and --error-rate act; bad values are refused naming the flag', async (t) => {
  const dir = await tempDir(t);
  const fleet = join(dir, 'fleet.yaml');
  await writeFile(fleet, TWO);
  const r = killOnTeardown(t, run('--fleet', fleet, '--deploy-ms', '10', '--fail-deploy', 'keep-1', '--broken', 'keep-2', '--latency-ms', '5'));
  const e = await endpointOf(r);
  await deploy(e, 'keep-1');
  await statusWithin(e, 'keep-1', 'Failed deployment');
  t.is((await machineNamed(e, 'keep-2')).status_name, 'Broken');
  r.child.kill('SIGTERM');
  t.is((await r.exited).code, 0);

  const failing = killOnTeardown(t, run('--error-rate', '1'));
  const f = await endpointOf(failing);
  t.is((await api(f, 'GET', 'machines/')).status, 503);
  failing.child.kill('SIGTERM');
  t.is((await failing.exited).code, 0);

  const refusals: Array<[string[], RegExp]> = [
    [['--error-rate', '1.5'], /--error-rate: expected a number from 0 to 1/],
    [['--latency-ms', '-3'], /--latency-ms: expected a number of milliseconds >= 0/],
    [['--speed', '0'], /--speed: expected a number > 0/],
    [['--fail-deploy', 'node 1'], /--fail-deploy: expected hostnames or system_ids/],
    [['--fleet', 'a.yaml', '--seed', 'b.yaml'], /--fleet and --seed name the same thing/],
    [['--broken', 'node-01,node-99'], /--broken: no machine "node-99" in the fleet \(hostnames: node-01, /],
  ];
  for (const [args, message] of refusals) {
    const bad = run(...args);
    t.is((await bad.exited).code, 2, args.join(' '));
    t.regex(bad.stderr(), message);
  }
});

test('maas sim - --speed makes the lifecycle faster: a deploy completes within a test budget', async (t) => {
  const dir = await tempDir(t);
  const fleet = join(dir, 'fleet.yaml');
  await writeFile(fleet, TWO);
  const r = killOnTeardown(t, run('--fleet', fleet, '--speed', '1000'));
  const e = await endpointOf(r);
  await deploy(e, 'keep-2');
  await statusWithin(e, 'keep-2', 'Deployed', 15_000);
  t.is((await machineNamed(e, 'keep-2')).status_name, 'Deployed');
  r.child.kill('SIGTERM');
  t.is((await r.exited).code, 0);
});
