// IRONIC_CLIENT_TIMEOUT is seconds that become a timer: past what a Node timer holds (about 24.8
// days) every Ironic call timed out after 1 ms, and a value under a millisecond was blamed on
// --ironic. Both are refused naming the variable.
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { readEnv } from '../../src/cli/config.ts';
import { execFile } from 'node:child_process';
import { ROOT } from './run.ts';

test('env - IRONIC_CLIENT_TIMEOUT beyond what a timer holds, or under a millisecond, is refused naming the variable', (t) => {
  for (const bad of ['3000000', 'Infinity', '0.0001', '0', '-5', 'soon']) {
    const err = t.throws(() => readEnv({ IRONIC_CLIENT_TIMEOUT: bad }), { instanceOf: CliError }, bad);
    t.regex(err?.message ?? '', /^environment variable IRONIC_CLIENT_TIMEOUT: /, bad);
    t.is(err?.exitCode, 2);
  }
});

test('env - IRONIC_CLIENT_TIMEOUT in range is kept, fractions of a second included', (t) => {
  t.is(readEnv({ IRONIC_CLIENT_TIMEOUT: '2147483' }).IRONIC_CLIENT_TIMEOUT, 2_147_483);
  t.is(readEnv({ IRONIC_CLIENT_TIMEOUT: '0.5' }).IRONIC_CLIENT_TIMEOUT, 0.5);
  t.is(readEnv({}).IRONIC_CLIENT_TIMEOUT, 30);
});

test('env - an IRONIC_CLIENT_TIMEOUT whose milliseconds are not whole (1.001 s) reaches Ironic, not a refusal blamed on --ironic', async (t) => {
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', 'node', '--nats', 'nats://127.0.0.1:1', '--allow-unsigned-commands', '--ironic', 'http://127.0.0.1:1'],
      { cwd: ROOT, env: { ...process.env, IRONIC_CLIENT_TIMEOUT: '1.001' }, timeout: 60_000 }, (err, _stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr }));
  });
  t.notRegex(r.stderr, /--ironic http:\/\/127\.0\.0\.1:1: /, r.stderr);
  t.regex(r.stderr, /nats:\/\/127\.0\.0\.1:1: cannot connect/, 'it got as far as NATS');
});
