// `metalfleet node`'s dashboard flags are checked before anything connects: commands need a token
// file and the health port, and a token is never echoed back in an error.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

// Nothing listens here: a flag error must come before any connection is tried.
const NATS = ['--nats', 'nats://127.0.0.1:1'];

test('node ui flags - --ui-commands needs --health-port and --ui-token-file, and the token flags need --ui-commands', async (t) => {
  const noPort = await metalfleet('node', ...NATS, '--ui-commands', '--ui-token-file', '/nonexistent');
  t.is(noPort.code, 2);
  t.regex(noPort.stderr, /--ui-commands: the dashboard is served on the health port; add --health-port/);
  const noFile = await metalfleet('node', ...NATS, '--health-port', '0', '--ui-commands');
  t.is(noFile.code, 2);
  t.regex(noFile.stderr, /--ui-commands needs --ui-token-file/);
  const stray = await metalfleet('node', ...NATS, '--health-port', '0', '--ui-token-file', '/nonexistent');
  t.is(stray.code, 2);
  t.regex(stray.stderr, /--ui-token-file and --ui-signing-key apply with --ui-commands/);
});

test('node ui flags - a missing or weak token file is refused naming the file, never printing the token', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-ui-token-'));
  try {
    const missing = await metalfleet('node', ...NATS, '--health-port', '0', '--ui-commands', '--ui-token-file', join(dir, 'absent'));
    t.is(missing.code, 2);
    t.regex(missing.stderr, /--ui-token-file: cannot read .*absent \(ENOENT\)/);
    const short = join(dir, 'short');
    await writeFile(short, 'tiny-secret-9\n');
    const weak = await metalfleet('node', ...NATS, '--health-port', '0', '--ui-commands', '--ui-token-file', short);
    t.is(weak.code, 2);
    t.regex(weak.stderr, /the token in .*short has 13 characters; use at least 16/);
    t.false(weak.stderr.includes('tiny-secret-9'));
    const base64 = join(dir, 'base64');
    await writeFile(base64, 'aGVsbG8rd29ybGQvYWdhaW4+Pz8=\n');
    const escaped = await metalfleet('node', ...NATS, '--health-port', '0', '--ui-commands', '--ui-token-file', base64);
    t.is(escaped.code, 2);
    t.regex(escaped.stderr, /may hold only letters, digits, "-" and "_" \(e\.g\. `openssl rand -hex 24/);
    t.false(escaped.stderr.includes('aGVsbG8rd29ybGQ'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
