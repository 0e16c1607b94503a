// The security CLI: keygen (a seed file of mode 0600, only the public key on stdout), a NATS node
// that would take anyone's commands refusing to start, an allow-list error naming its line, and
// `metalfleet host` / `metalfleet audit` against a node that checks signatures.
import test from 'ava';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { subjects } from '../../src/bus/index.ts';
import { readAudit } from '../../src/security/index.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { securityWorld, SHARDS } from './security-world.ts';

if (!natsServerInstalled()) test('security cli - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

test('security cli - keygen writes the seed with mode 0600, prints only the public key, and never overwrites', async (t) => {
  const w = await securityWorld(t);
  const file = join(w.dir, 'new.seed');
  const r = await metalfleet('keygen', '--out', file);
  t.is(r.code, 0, r.stderr);
  const seed = (await readFile(file, 'utf8')).trim();
  t.regex(seed, /^SU[A-Z2-7]{56}$/);
  t.is((await stat(file)).mode & 0o777, 0o600);
  t.deepEqual(lines(r.stdout).length, 1);
  t.regex(r.stdout, /^U[A-Z2-7]{55}\n$/);
  t.false(r.stdout.includes(seed) || r.stderr.includes(seed));
  const again = await metalfleet('keygen', '--out', file);
  t.is(again.code, 2);
  t.regex(again.stderr, /already exists/);
  t.is((await readFile(file, 'utf8')).trim(), seed, 'the first key is kept');
});

test('security cli - a NATS node needs --authorized-keys or --allow-unsigned-commands; a bad allow-list line stops it', async (t) => {
  const w = await securityWorld(t);
  const none = await metalfleet('node', '--nats', w.nats.url, '--name', 'x');
  t.is(none.code, 2);
  t.regex(none.stderr, /would take host commands and store changes from any NATS client: give --authorized-keys FILE.*or --allow-unsigned-commands/);
  const bad = join(w.dir, 'bad-keys');
  await writeFile(bad, `${await readFile(w.authorizedKeysFile, 'utf8')}root ${w.operator.publicKey}\n`);
  const badRun = await metalfleet('node', '--nats', w.nats.url, '--name', 'x', '--authorized-keys', bad);
  t.is(badRun.code, 2);
  t.regex(badRun.stderr, /--authorized-keys: .*bad-keys: line 4: role "root" must be one of operator, viewer/);
  const badSeed = await metalfleet('host', 'power-off', 'metal3/w', '--nats', w.nats.url, '--signing-key', w.authorizedKeysFile);
  t.is(badSeed.code, 2);
  t.regex(badSeed.stderr, /--signing-key: .*authorized-keys: is not an nkey user seed/);
});

test('security cli - metalfleet host signs with --signing-key or METALFLEET_SIGNING_KEY_FILE; unsigned and viewer are refused; audit --host filters', async (t) => {
  const w = await securityWorld(t);
  const a = await w.provisioned('host-a');
  const b = await w.provisioned('host-b');
  const nats = ['--nats', w.nats.url, '--shards', String(SHARDS), '--timeout', '5'];

  const unsigned = await metalfleet('host', 'power-off', a, ...nats);
  t.is(unsigned.code, 1);
  t.regex(unsigned.stderr, /metal3\/host-a: error unauthorized: unsigned request refused.*\(no --signing-key given, nor METALFLEET_SIGNING_KEY_FILE\)/);

  const viewer = await metalfleet('host', 'power-off', a, ...nats, '--signing-key', w.seedFiles.viewer);
  t.is(viewer.code, 1);
  t.regex(viewer.stderr, /error forbidden: key victor has role viewer/);

  const signed = await metalfleet('host', 'power-off', a, ...nats, '--signing-key', w.seedFiles.operator);
  t.is(signed.code, 0, signed.stderr);
  t.regex(signed.stdout, /^metal3\/host-a: .* \(state provisioned\)$/m);
  const byEnv = await runWithEnv(['host', 'reboot', b, ...nats], { METALFLEET_SIGNING_KEY_FILE: w.seedFiles.operator });
  t.is(byEnv.code, 0, byEnv.stderr);

  const onlyB = await metalfleet('audit', '--host', b, '--nats', w.nats.url, '--json');
  t.is(onlyB.code, 0, onlyB.stderr);
  const records = lines(onlyB.stdout).map((l) => JSON.parse(l) as { host: string; command: string; outcome: string; caller: { name?: string } });
  t.deepEqual(records.map((r) => [r.host, r.command, r.outcome, r.caller.name]), [[b, 'reboot', 'applied', 'alice']]);

  const onlyA = await metalfleet('audit', '--host', a, '--nats', w.nats.url);
  t.is(onlyA.code, 0, onlyA.stderr);
  const text = lines(onlyA.stdout);
  t.is(text.length, 3);
  // Every attempt of one `metalfleet host` call carries one request id (mf-<uuid>), shown in the audit.
  t.regex(text[0]!, /node-a {2}unsigned {2}command powerOff {2}metal3\/host-a {2}request mf-[0-9a-f-]{36} {2}refused unauthorized: unsigned request refused/);
  t.regex(text[1]!, /victor \(viewer U.{11}\.\.\.\) {2}command powerOff {2}metal3\/host-a {2}request mf-[0-9a-f-]{36} {2}refused forbidden/);
  t.regex(text[2]!, /alice \(operator U.{11}\.\.\.\) {2}command powerOff {2}metal3\/host-a {2}request mf-[0-9a-f-]{36} {2}applied$/);

  // --since: a time after everything so far shows nothing; a duration shows all of it.
  const all = await readAudit(w.client, subjects());
  t.is(all.length, 4);
  const future = await metalfleet('audit', '--since', new Date(Date.now() + 60_000).toISOString(), '--nats', w.nats.url);
  t.is(future.code, 0, future.stderr);
  t.deepEqual(lines(future.stdout), []);
  const recent = await metalfleet('audit', '--since', '10m', '--nats', w.nats.url);
  t.is(lines(recent.stdout).length, 4);
  const middle = await metalfleet('audit', '--since', all[2]!.at, '--json', '--nats', w.nats.url);
  t.true(lines(middle.stdout).length >= 1 && lines(middle.stdout).length <= 2, middle.stdout);
  const badSince = await metalfleet('audit', '--since', 'yesterday', '--nats', w.nats.url);
  t.is(badSince.code, 2);
  t.regex(badSince.stderr, /--since "yesterday": give an RFC 3339 time/);

  for (const seed of await w.seeds()) {
    for (const run of [unsigned, viewer, signed, byEnv, onlyA, onlyB]) t.false(run.stdout.includes(seed) || run.stderr.includes(seed));
  }
});

async function runWithEnv(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { execFile } = await import('node:child_process');
  const { ROOT } = await import('../cli/run.ts');
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

test('security cli - a node started with --allow-unsigned-commands says so once, as a warning, and takes an unsigned command (audited as unsigned)', async (t) => {
  const w = await securityWorld(t);
  const key = await w.provisioned('open-0');
  await w.server.close();
  const { spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  const { ROOT } = await import('../cli/run.ts');
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'node', '--nats', w.nats.url, '--name', 'open', '--shards', String(SHARDS), '--allow-unsigned-commands', '--log-level', 'warn', '--lease-ttl', '1000', '--heartbeat', '100'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    void exited.then(() => reject(new Error(`the node exited: ${stderr}`)));
  });
  const warnings = lines(stderr).filter((l) => l.includes('unsigned commands allowed'));
  t.is(warnings.length, 1, stderr);
  t.regex(warnings[0]!, /"level":40/);
  const r = await metalfleet('host', 'pause', key, '--nats', w.nats.url, '--shards', String(SHARDS), '--timeout', '20');
  t.is(r.code, 0, r.stderr);
  const record = (await readAudit(w.client, subjects(), { host: key })).at(-1);
  t.like(record, { node: 'open', command: 'pause', outcome: 'applied', caller: { kind: 'unsigned' } });
});
