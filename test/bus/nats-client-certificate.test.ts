// A NATS server that verifies client certificates (mutual TLS, deploy/nats/config.yaml), met
// without one: the server drops the connection once the TLS handshake is over, and the client
// never heard of it, so connecting waited out its whole connect timeout (20 s for a node, 5-10 s
// for a CLI command) and then said only "timeout". It now fails at once, naming what is missing
// and the flags that give it, never a password.
import test from 'ava';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import { BusConnectError, connectNats } from '../../src/bus/nats-transport.ts';
import { sharedSecureNats } from '../support/secure-nats.ts';
import { timedCli } from '../support/timed-cli.ts';

// Well below the old wait (the node's 20 s connect timeout), with room for a loaded machine.
const PROMPT_MS = 8_000;

const n = sharedSecureNats(test);

const NEEDS_CERT = /requires a client certificate/;
const NAMES_FLAGS = /--nats-cert and --nats-key/;

test('nats client certificate - connecting without one fails at once, saying the server requires it', async (t) => {
  const started = performance.now();
  const error = await t.throwsAsync(connectNats({
    servers: n().url, name: 'no-cert', auth: { user: 'viewer', pass: n().passwords.viewer }, tls: { caFile: n().caFile },
  }), { instanceOf: BusConnectError });
  const tookMs = performance.now() - started;
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms`);
  t.regex(error.message, NEEDS_CERT);
  t.regex(error.message, NAMES_FLAGS);
  t.false(error.retryable, 'the same connect fails the same way: not retryable');
  t.false(error.message.includes(n().passwords.viewer), 'no secret in the message');
});

test('nats client certificate - with its certificate the same user connects', async (t) => {
  const transport = await connectNats({ servers: n().url, name: 'with-cert', auth: { user: 'viewer', pass: n().passwords.viewer }, tls: n().tlsFor('viewer') });
  t.teardown(() => transport.close());
  t.pass();
});

// The processes one at a time, each timed against a run of the same command that stops on a
// usage error just before it would connect: starting from source takes seconds on a loaded
// 2-core machine, and the bound is on what the connect adds (about 7 s for `nodes`, whose connect
// timeout is 5 s tried twice; 20 s for a node).
const PROCESS_CONNECT_MS = 5_000;

function withoutCert(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NATS_CERT;
  delete out.NATS_KEY;
  return out;
}

test.serial('nats client certificate - a CLI command without one says so promptly', async (t) => {
  const args = ['nodes', '--timeout', '2', '--nats', n().url, ...n().tlsFlags];
  // The same command with a key and no certificate stops before connecting (exit 2).
  const startup = await timedCli(args, { ...withoutCert(n().envFor('viewer')), NATS_KEY: n().certs.viewer.keyFile });
  t.is(startup.code, 2, startup.stderr);
  const run = await timedCli(args, withoutCert(n().envFor('viewer')));
  t.not(run.code, 0, run.stderr);
  t.true(run.tookMs - startup.tookMs < PROCESS_CONNECT_MS, `took ${Math.round(run.tookMs)} ms, ${Math.round(startup.tookMs)} ms to start: ${run.stderr}`);
  t.regex(run.stderr, NEEDS_CERT);
  t.regex(run.stderr, NAMES_FLAGS);
  t.false(run.stderr.includes(n().passwords.viewer));
});

test.serial('nats client certificate - a node started without one exits promptly, saying so', async (t) => {
  const fixture = await startFixtureServer({ options: { latencyMs: 0, demoBehaviours: false } });
  t.teardown(() => fixture.close());
  const args = ['node', '--nats', n().url, ...n().tlsFlags, '--name', 'no-cert', '--fixture-url', fixture.url, '--shards', '4', '--log-level', 'warn'];
  const env = withoutCert(n().envFor('node'));
  // Without --allow-unsigned-commands the node stops on a usage error just before it connects.
  const startup = await timedCli(args, env);
  t.is(startup.code, 2, startup.stderr);
  const run = await timedCli([...args, '--allow-unsigned-commands'], env);
  t.not(run.code, 0, run.stderr);
  t.true(run.tookMs - startup.tookMs < PROCESS_CONNECT_MS, `took ${Math.round(run.tookMs)} ms, ${Math.round(startup.tookMs)} ms to start: ${run.stderr}`);
  t.regex(run.stderr, NEEDS_CERT);
  t.regex(run.stderr, NAMES_FLAGS);
  t.false(run.stderr.includes(n().passwords.node));
});
