// `metalfleet sim maas`: the variables it prints, the seed file, and a clean exit on SIGTERM.
import { spawn } from 'node:child_process';
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

function plaintext(key: string): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  return `OAuth oauth_consumer_key="${ck}", oauth_token="${tk}", oauth_signature_method="PLAINTEXT", oauth_signature="%26${ts}", oauth_timestamp="${Math.floor(Date.now() / 1000)}", oauth_nonce="cli-test"`;
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
  t.regex(missing.stderr(), /nope\.yaml: cannot read \(ENOENT\)/);

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
  t.regex(bad.stderr(), /--machine: \[0\]\.cpuCount/);
});
