import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { lines, metalfleet, ROOT } from './run.ts';

test('demo - the embedded default drives generated hosts to their targets and exits 0', async (t) => {
  const r = await metalfleet('demo', '--hosts', '60', '--latency', '0', '--json');
  t.is(r.code, 0, r.stderr);
  const summary = JSON.parse(lines(r.stdout).at(-1) ?? '{}') as { ok: boolean; hosts: number; reached: number; byState: Record<string, number>; maas: { ok: boolean; machines: number; ready: number; dnsIps: string[]; controlPlaneIps: string[] } };
  t.true(summary.ok);
  t.is(summary.hosts, 60);
  // The MAAS cluster beside the hosts, through the simulator over HTTP: all deployed, DNS = control plane.
  t.true(summary.maas.ok);
  t.is(summary.maas.ready, 7);
  t.deepEqual(summary.maas.dnsIps, summary.maas.controlPlaneIps);
  t.is(summary.maas.dnsIps.length, 3);
  t.is(summary.reached, 60);
  t.true((summary.byState['provisioned'] ?? 0) > 40);
  t.is(summary.byState['registering'], 2); // demo-registration-error and demo-registering
});

test('demo - plain progress lines when not on a terminal, and a final line', async (t) => {
  const r = await metalfleet('demo', '--hosts', '30', '--latency', '5');
  t.is(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  t.regex(out[0] ?? '', /^\[\d+\.\ds\] done \d+\/30 /);
  t.regex(out.at(-2) ?? '', /^30\/30 hosts reached their target in/);
  t.regex(out.at(-1) ?? '', /^MAAS: 7\/7 MaasMachines ready; demo-[0-9a-f]{6}\.maas -> /);
});

test('demo - loads manifests with -f and checks each host against its own spec', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-demo-'));
  try {
    const persist = join(dir, 'status.json');
    const r = await metalfleet('demo', '-f', 'test/fixtures/demo/lab.yaml', '--latency', '0', '--json', '--persist', persist);
    t.is(r.code, 0, r.stderr);
    const summary = JSON.parse(lines(r.stdout).at(-1) ?? '{}') as { byState: Record<string, number> };
    t.deepEqual(summary.byState, { provisioned: 1, available: 1, registering: 1 });
    const saved = await readFile(persist, 'utf8');
    t.true(saved.includes('rack1-node1'));
    t.false(saved.includes('s3cr3t-lab-password'));
    t.false(r.stdout.includes('s3cr3t-lab-password') || r.stderr.includes('s3cr3t-lab-password'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('demo - an invalid manifest is refused with file, document and field, and the demo does not start', async (t) => {
  const r = await metalfleet('demo', '-f', 'test/fixtures/demo/bad.yaml');
  t.is(r.code, 1);
  t.regex(r.stderr, /test\/fixtures\/demo\/bad\.yaml:9:5: BareMetalHost lab\/broken: spec\.bmc\.address: .*warp/);
  t.is(r.stdout, '');
});

test('demo - a manifest file over the size limit is refused before it is read', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-demo-big-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const big = join(dir, 'big.yaml');
  // Sparse: 65 MiB on paper, nothing on disk; read whole, it would be 65 MiB of memory.
  await writeFile(big, '');
  await truncate(big, 65 * 1024 * 1024);
  const r = await metalfleet('demo', '-f', big);
  t.is(r.code, 1);
  t.regex(r.stderr, /big\.yaml: is 65 MiB \(68157440 bytes\); a manifest file may be at most 64 MiB/);
  t.is(r.stdout, '');
});

test('demo - a missing file and a bad flag are one-line errors', async (t) => {
  const missing = await metalfleet('demo', '-f', 'no/such/file.yaml');
  t.is(missing.code, 1);
  t.is(missing.stderr.trim(), 'metalfleet: no/such/file.yaml: cannot read: no such file');
  const badFlag = await metalfleet('demo', '--hosts', 'lots');
  t.is(badFlag.code, 2);
  t.regex(badFlag.stderr, /--hosts: expected a whole number >= 1, got "lots"/);
});

test('demo - exits non-zero when hosts cannot reach their targets in time', async (t) => {
  const r = await metalfleet('demo', '--hosts', '20', '--latency', '400', '--timeout', '1', '--json');
  t.is(r.code, 1);
  const summary = JSON.parse(lines(r.stdout).at(-1) ?? '{}') as { ok: boolean; notReached: unknown[] };
  t.false(summary.ok);
  t.true(summary.notReached.length > 0);
});

test('demo - a malformed environment variable and a MAAS URL without its key are one-line errors', async (t) => {
  const env = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', 'demo', '--hosts', '2'], { cwd: ROOT, env: { ...process.env, PROVISIONING_LIMIT: 'lots' } }, (err, _out, stderr) => resolve({ code: err && typeof err.code === 'number' ? err.code : 0, stderr }));
  });
  t.is(env.code, 2);
  t.regex(env.stderr.trim(), /^metalfleet: environment variable PROVISIONING_LIMIT: /);
  const half = await metalfleet('demo', '--hosts', '2', '--maas', 'http://127.0.0.1:9/MAAS');
  t.is(half.code, 2);
  t.is(half.stderr.trim(), 'metalfleet: --maas and --maas-key (or MAAS_ENDPOINT and MAAS_API_KEY) go together');
});
