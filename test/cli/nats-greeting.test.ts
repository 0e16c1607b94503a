// A port that accepts the TCP connection but never says the NATS greeting (INFO): a proxy holding
// connections, a stalled server, an HTTP server (nats-server's monitoring port, 8222, is a common
// slip), or some other service. The NATS client waited out its whole connect timeout (a one-shot
// command took 8-15 s) and said "timeout". It now fails in a few seconds naming the address and
// what was found there.
import http from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { BusConnectError, connectNats } from '../../src/bus/nats-transport.ts';
import { timedCli } from '../support/timed-cli.ts';

// The greeting is waited for about 2 s, then an HTTP server is asked to show itself (0.5 s); the
// connect timeout (30 s here) is what the client waited out before. Room for a loaded CI machine.
const PROMPT_MS = 10_000;

async function listening(t: ExecutionContext, server: Server | http.Server): Promise<string> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(servers: string): Promise<{ error: BusConnectError; tookMs: number }> {
  const started = performance.now();
  const error = await connectNats({ servers, name: 'greeting', timeoutMs: 30_000, maxReconnectAttempts: 3, reconnectTimeWaitMs: 1_000 }).then(async (transport) => {
    await transport.close();
    throw new Error('connected');
  }, (e: unknown) => e);
  if (!(error instanceof BusConnectError)) throw error;
  return { error, tookMs: performance.now() - started };
}

test('nats greeting - a port that accepts and says nothing fails in seconds, naming the address and the greeting', async (t) => {
  const address = await listening(t, createServer(() => undefined));
  const { error, tookMs } = await failure(`nats://${address}`);
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.true(error.message.includes(`the server at ${address} accepted the connection but never sent the NATS greeting`), error.message);
  t.regex(error.message, /proxy/);
});

test('nats greeting - an HTTP server on the port is named as one', async (t) => {
  const address = await listening(t, http.createServer((_req, res) => res.end('monitoring')));
  const { error, tookMs } = await failure(`nats://${address}`);
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.true(error.message.includes(`the server at ${address} is an HTTP server, not a NATS server`), error.message);
  t.false(error.retryable, 'the same address answers the same way');
});

test('nats greeting - a service that greets with something else is named as not NATS, with what it said', async (t) => {
  const address = await listening(t, createServer((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n')));
  const { error, tookMs } = await failure(address);
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.true(error.message.includes(`the server at ${address} is not a NATS server: it greeted with "SSH-2.0-OpenSSH_9.6"`), error.message);
  t.false(error.retryable);
});

test('nats greeting - a port that accepts and hangs up at once says so', async (t) => {
  const address = await listening(t, createServer((s) => s.destroy()));
  const { error, tookMs } = await failure(address);
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.true(error.message.includes(`the server at ${address} accepted the connection and closed it without the NATS greeting`), error.message);
});

test('nats greeting - a user and password in the URL never show in the error', async (t) => {
  const address = await listening(t, createServer(() => undefined));
  const { error } = await failure(`nats://admin:s3cret-Pw@${address}`);
  t.regex(error.message, /never sent the NATS greeting/);
  t.false(error.message.includes('s3cret-Pw'), error.message);
});

// A process also loads the NATS client before it dials (a second or so from source, under load);
// the commands took 7-14 s before.
// The CLI's connect timeout is 10 s: under 7 s can only be the greeting's own wait.
const PROCESS_PROMPT_MS = 7_000;

test.serial('nats greeting - one-shot commands against a silent port fail in seconds with one line naming it', async (t) => {
  const address = await listening(t, createServer(() => undefined));
  for (const command of [['hosts'], ['host', 'power-on', 'lab/h-0']]) {
    // The same command stopped by a usage error just before it would connect: the start-up cost.
    const startup = await timedCli([...command, '--nats', `nats://${address}`, '--nats-cert', '/nonexistent.pem']);
    t.is(startup.code, 2, startup.stderr);
    const run = await timedCli([...command, '--nats', `nats://${address}`]);
    t.is(run.code, 1, run.stderr);
    t.true(run.tookMs - startup.tookMs < PROCESS_PROMPT_MS, `${command[0]} took ${Math.round(run.tookMs)} ms, ${Math.round(startup.tookMs)} ms to start: ${run.stderr}`);
    const lines = run.stderr.split('\n').filter(Boolean);
    t.is(lines.length, 1, run.stderr);
    t.regex(lines[0] ?? '', /accepted the connection but never sent the NATS greeting/, command[0]);
  }
});
