// A port that accepts TCP but never speaks NATS: the command says so in one line and exits
// (issue 19.6: it never exited, the NATS client kept retrying after the error was printed).
import { createServer, type AddressInfo, type Socket } from 'node:net';
import test from 'ava';
import { metalfleet } from './run.ts';

test('not NATS - hosts against a silent TCP port prints one error line and exits 1', async (t) => {
  const sockets = new Set<Socket>();
  const server = createServer((s) => void sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const run = await metalfleet('hosts', '--nats', `nats://127.0.0.1:${port}`);
  t.is(run.code, 1, run.stderr);
  const lines = run.stderr.split('\n').filter(Boolean);
  t.is(lines.length, 1, run.stderr);
  t.regex(lines[0] ?? '', new RegExp(`^metalfleet: cannot reach NATS at nats://127\\.0\\.0\\.1:${port}: cannot connect`));
});

test('not NATS - a refused connection says what to check, for the commands that read and those that change', async (t) => {
  // Port 1 refuses at once. Each command's one line names the server and what to do about it.
  const url = 'nats://127.0.0.1:1';
  for (const command of [['hosts'], ['host', 'power-on', 'lab/h-0'], ['audit'], ['node', '--allow-unsigned-commands', '--log-level', 'silent']]) {
    const run = await metalfleet(...command, '--nats', url);
    t.is(run.code, 1, `${command[0]}: ${run.stderr}`);
    const lines = run.stderr.split('\n').filter(Boolean);
    t.is(lines.length, 1, run.stderr);
    t.regex(lines[0] ?? '', /127\.0\.0\.1:1.*cannot connect \(connection refused\); is a NATS server running there\? Give its address with --nats URL \(or NATS_URL\)$/, command[0]);
  }
});
