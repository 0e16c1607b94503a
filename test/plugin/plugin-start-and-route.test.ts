// What a new user met with plugins: a --plugin whose factory fails stops the start (one folder
// plugin failing is still skipped); one backend still honours the provisioner label; a plugin
// method that throws says why in the node's log; a plugin without `firmware` warns of nothing;
// and a plugin folder from the environment is named as such.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metalfleet, metalfleetWithEnv } from '../cli/run.ts';
import { PROVISIONER_LABEL, selectProvisioner } from '../../src/cli/provisioners.ts';
import { fixtureBuiltin } from '../../src/cli/builtin-provisioners.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { invoke, silentLogger } from '../../src/ports/index.ts';
import { labelChecked } from '../../src/adapters/routed/routed-provisioner.ts';
import { initialState } from '../../src/machines/bmh/index.ts';
import { makeHost, reply, T0, tick } from '../support/bmh.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOSTS = 'test/fixtures/plugins/lab-hosts.yaml';

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'metalfleet-plugin-start-'));
  // A lab-like plugin whose register throws (a bug in the plugin) and which has no `firmware`.
  await writeFile(join(dir, 'throwing-register.mjs'), `
const ops = ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete'];
export default {
  name: 'lab', contractVersion: 1, resource: 'BareMetalHost',
  supports: { operations: ops, bmcSchemes: ['lab'] },
  create() {
    const p = { name: 'lab', capacity: () => ({ pool: 'lab', exempt: false }) };
    for (const op of ops) p[op] = async () => ({ kind: 'done', poweredOn: true });
    p.register = (host) => { throw new Error('PDU socket refused for ' + host.key + ' (password ' + host.credentials.password + ')'); };
    return p;
  },
};
`);
});
test.after.always(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('plugin start - a --plugin whose factory fails stops the start with exit 2 naming the plugin, in one line', async (t) => {
  const run = await metalfleet('demo', '-f', HOSTS, '--plugin', 'metalfleet-provisioner-lab', '--provisioner-option', 'lab.provisionMs=abc', '--json');
  t.is(run.code, 2, run.stderr);
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  t.is(lines.length, 1, run.stderr);
  t.regex(lines[0] ?? '', /^metalfleet: --plugin provisioner plugin lab \(metalfleet-provisioner-lab\): create\(\) failed: option provisionMs: must be a whole number of milliseconds, got "abc"$/);
  t.notRegex(run.stderr, /skipped/);

  const throws = await metalfleet('demo', '-f', HOSTS, '--plugin', './test/fixtures/plugins/folder/throwing-factory.mjs');
  t.is(throws.code, 2, throws.stderr);
  t.regex(throws.stderr, /--plugin provisioner plugin .*throwing-factory\.mjs.*create\(\) failed: cannot reach the PDU controller/);
  t.notRegex(throws.stderr, /pdu-secret-4417/);
});

test('plugin start - metalfleet node refuses a --plugin whose factory throws before it joins a cluster', async (t) => {
  const run = await metalfleet('node', '--nats', 'nats://127.0.0.1:9', '--plugin', './test/fixtures/plugins/folder/throwing-factory.mjs');
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /--plugin provisioner plugin .*throwing-factory\.mjs.*create\(\) failed: cannot reach the PDU controller/);
});

test('plugin start - a folder plugin whose factory fails is still skipped with a warning', async (t) => {
  const warnings: string[] = [];
  const selected = await selectProvisioner({
    flags: { pluginDir: 'test/fixtures/plugins/folder' }, builtins: [fixtureBuiltin(0)], defaultName: 'fixture',
    cwd: ROOT, log: silentLogger, warn: (line) => warnings.push(line),
  });
  t.deepEqual(selected.active, ['fixture', 'lab']);
  t.true(warnings.some((w) => w.includes('create() failed: cannot reach the PDU controller') && w.endsWith('; skipped')), warnings.join('\n'));
});

function hostData(name: string, labels?: Record<string, string>): HostData {
  return {
    key: `lab/${name}`, namespace: 'lab', name, uid: `uid-${name}`, provisionerId: '',
    spec: { online: true, bmc: { address: 'ipmi://10.0.0.9', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:dd:00:01' } as HostData['spec'],
    credentials: { username: 'admin', password: 'pw' },
    ...(labels ? { labels } : {}),
  };
}

test('plugin route - with one backend, a host whose label names another is refused as the router refuses it; no label or its own name is served', async (t) => {
  const selected = await selectProvisioner({
    flags: {}, builtins: [fixtureBuiltin(0)], defaultName: 'fixture', cwd: ROOT, log: silentLogger, warn: () => undefined,
  });
  t.deepEqual(selected.active, ['fixture']);
  const p = selected.provisioner;
  t.is(p.name, 'fixture', 'the one backend is still itself');
  const typo = hostData('typo', { [PROVISIONER_LABEL]: 'ironic-typo' });
  t.deepEqual(await invoke(p, typo, { op: 'register', restartOnFailure: false, credentialsChanged: false }), {
    kind: 'failed', message: `label ${PROVISIONER_LABEL}=ironic-typo names no configured backend (known: fixture)`, retryAfterMs: null,
  });
  t.deepEqual(p.capacity(typo), { pool: 'unrouted', exempt: true });
  for (const h of [hostData('plain'), hostData('own', { [PROVISIONER_LABEL]: 'fixture' })]) {
    t.like(await invoke(p, h, { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'done' }, h.name);
  }
});

test('plugin route - the label check keeps an absent optional method absent, and calls the backend as itself', async (t) => {
  class Backend {
    readonly name = 'solo';
    #seen = 0;
    capacity() { return { pool: 'solo', exempt: false }; }
    register() { this.#seen += 1; return Promise.resolve({ kind: 'done' as const }); }
    seen() { return this.#seen; }
  }
  const backend = new Backend();
  const checked = labelChecked(backend as unknown as Provisioner & Backend, { route: 'solo', label: 'backend' });
  t.like(await checked.register(hostData('a'), { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'done' });
  t.is(checked.seen(), 1);
  t.is(checked.firmware, undefined);
  t.is(checked.service, undefined);
  t.like(await checked.register(hostData('b', { backend: 'other' }), { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'failed' });
  t.is(backend.seen(), 1, 'the refused host never reached the backend');
});

test('plugin firmware - a backend without `firmware` has no firmware to tell: a done read, no failure', async (t) => {
  const p = { name: 'bare' } as unknown as Provisioner;
  t.deepEqual(await invoke(p, hostData('fw'), { op: 'firmware' }), { kind: 'done' });
});

test('plugin transient - a transient answer tells its reason once a run as a Warning, status untouched; the retries say nothing more', (t) => {
  const s0 = tick(initialState(makeHost()));
  const s1 = reply(s0, { kind: 'transient', message: 'provisioner plugin lab: register threw: PDU socket refused' });
  t.false(s1.effects.some((e) => e.type === 'writeStatus'));
  const warned = s1.effects.filter((e) => e.type === 'event');
  t.deepEqual(warned, [{ type: 'event', severity: 'Warning', reason: 'TransientError', message: 'register failed, retrying: provisioner plugin lab: register threw: PDU socket refused' }]);
  const s2 = reply(tick(s1.state, T0 + 50), { kind: 'transient', message: 'provisioner plugin lab: register threw: PDU socket refused' }, T0 + 50);
  t.deepEqual(s2.effects.filter((e) => e.type === 'event'), []);
});

test('plugin cli - a plugin method that throws is told in the node log (secrets redacted), and a plugin without firmware warns of no firmware', async (t) => {
  const run = await metalfleet('demo', '-f', HOSTS, '--plugin', join(dir, 'throwing-register.mjs'), '--timeout', '3', '--log-level', 'warn');
  t.is(run.code, 1, run.stderr);
  const out = run.stdout + run.stderr;
  t.regex(out, /PDU socket refused for lab\/lab-1/);
  t.notRegex(out, /pdu-secret-4417/);
  t.notRegex(out, /FirmwareReadFailed|cannot read firmware/);
});

test('plugin cli - the lab example without firmware provisions its hosts with no firmware warnings', async (t) => {
  const run = await metalfleet('demo', '-f', HOSTS, '--plugin', 'metalfleet-provisioner-lab', '--provisioner-option', 'lab.provisionMs=1', '--log-level', 'warn', '--timeout', '20');
  t.is(run.code, 0, run.stderr);
  t.notRegex(run.stdout + run.stderr, /FirmwareReadFailed|cannot read firmware/);
});

test('plugin cli - a plugin folder from METALFLEET_PLUGIN_DIR is named by the variable, not by a flag never given', async (t) => {
  const missing = join(dir, 'no-such-folder');
  const env = await metalfleetWithEnv({ METALFLEET_PLUGIN_DIR: missing }, 'demo', '-f', HOSTS);
  t.is(env.code, 2, env.stderr);
  t.regex(env.stderr, /^metalfleet: METALFLEET_PLUGIN_DIR provisioner plugin .*no-such-folder: plugin folder cannot be read/m);
  t.notRegex(env.stderr, /--plugin-dir/);
  const flag = await metalfleetWithEnv({ METALFLEET_PLUGIN_DIR: missing }, 'demo', '-f', HOSTS, '--plugin-dir', missing);
  t.is(flag.code, 2, flag.stderr);
  t.regex(flag.stderr, /^metalfleet: --plugin-dir provisioner plugin /m);
});
