// A mutual-TLS server that refuses the client's certificate (signed by another CA, or expired):
// under TLS 1.3 the client's side of the handshake is over before the server has looked at the
// certificate, so the server's refusal (an alert, or a reset) arrived after nats.js had taken the
// socket, and the client waited out its whole connect timeout (10-20 s) before saying "timeout".
// Each now fails within a couple of seconds naming the certificate and what is wrong with it,
// as does a CA file that does not trust the server's certificate; never with a password.
import test from 'ava';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import { BusConnectError, connectNats } from '../../src/bus/nats-transport.ts';
import { sharedSecureNats } from '../support/secure-nats.ts';
import { makeBadCerts, type BadCerts } from './nats-cert-fixtures.ts';
import { timedCli } from '../support/timed-cli.ts';

const n = sharedSecureNats(test);
// Made once, after the server's before hook (hooks run concurrently): the first test to ask makes them.
let made: Promise<BadCerts> | undefined;
const badCerts = (): Promise<BadCerts> => (made ??= makeBadCerts(n().dir));

// Well under the connect timeouts the client waited out (10 s for a CLI, 20 s for a node).
// (30 s given here.) Room for a loaded CI machine.
const PROMPT_MS = 10_000;

async function refusal(tls: { caFile: string; certFile: string; keyFile: string }): Promise<{ error: BusConnectError; tookMs: number }> {
  const started = performance.now();
  const error = await connectNats({ servers: n().url, name: 'refused', auth: { user: 'viewer', pass: n().passwords.viewer }, tls, timeoutMs: 30_000 })
    .then(async (transport) => {
      await transport.close();
      throw new Error('connected');
    }, (e: unknown) => e);
  if (!(error instanceof BusConnectError)) throw error;
  return { error, tookMs: performance.now() - started };
}

test('nats client cert refused - one from another CA fails at once, saying the server refused it', async (t) => {
  const { error, tookMs } = await refusal({ caFile: n().caFile, ...(await badCerts()).stray });
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.regex(error.message, /server refused the client certificate/);
  t.true(error.message.includes((await badCerts()).stray.certFile), error.message);
  t.regex(error.message, /signed by a CA the server trusts/);
  t.false(error.retryable);
  t.false(error.message.includes(n().passwords.viewer));
});

test('nats client cert refused - an expired one fails at once, saying it expired and when', async (t) => {
  const { error, tookMs } = await refusal({ caFile: n().caFile, ...(await badCerts()).expired });
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.regex(error.message, /server refused the client certificate/);
  t.true(error.message.includes((await badCerts()).expired.certFile), error.message);
  t.regex(error.message, /expired on 2020-01-31/);
  t.false(error.retryable);
  t.false(error.message.includes(n().passwords.viewer));
});

test('nats client cert refused - a CA file that did not sign the server certificate says the server was not trusted', async (t) => {
  const { error, tookMs } = await refusal({ caFile: (await badCerts()).otherCa, ...n().certs.viewer });
  t.true(tookMs < PROMPT_MS, `failed after ${Math.round(tookMs)} ms: ${error.message}`);
  t.regex(error.message, /server's certificate is not trusted by the CA file/);
  t.true(error.message.includes((await badCerts()).otherCa), error.message);
  t.false(error.retryable);
});

// That a connection which is up still reconnects after the server restarts is
// test/bus/nats-transport.test.ts's "after a server restart the connection comes back".

// Processes, each timed against the same command stopped by a usage error just before it would
// connect: starting from source takes seconds on a loaded machine; the bound is on what connecting adds.
// The CLI's connect timeout is 10 s: under 7 s can only be the refusal read at once.
const PROCESS_CONNECT_MS = 7_000;

function envWith(role: 'viewer' | 'node', cert: { certFile: string; keyFile: string }): NodeJS.ProcessEnv {
  return { ...n().envFor(role), NATS_CERT: cert.certFile, NATS_KEY: cert.keyFile };
}

test.serial('nats client cert refused - CLI commands with a stray certificate fail promptly, saying so', async (t) => {
  for (const command of [['nodes', '--timeout', '2'], ['audit']]) {
    const args = [...command, '--nats', n().url, ...n().tlsFlags];
    const env = envWith('viewer', (await badCerts()).stray);
    // The same command with a key and no certificate stops before connecting (exit 2).
    const startup = await timedCli(args, { ...env, NATS_CERT: '' });
    t.is(startup.code, 2, startup.stderr);
    const run = await timedCli(args, env);
    t.is(run.code, 1, run.stderr);
    t.true(run.tookMs - startup.tookMs < PROCESS_CONNECT_MS, `${command[0]} took ${Math.round(run.tookMs)} ms, ${Math.round(startup.tookMs)} ms to start: ${run.stderr}`);
    t.regex(run.stderr, /server refused the client certificate/, command[0]);
    t.is(run.stderr.split('\n').filter(Boolean).length, 1, run.stderr);
    t.false(run.stderr.includes(n().passwords.viewer));
  }
});

test.serial('nats client cert refused - a node with an expired certificate exits promptly, saying it expired', async (t) => {
  const fixture = await startFixtureServer({ options: { latencyMs: 0, demoBehaviours: false } });
  t.teardown(() => fixture.close());
  const args = ['node', '--nats', n().url, ...n().tlsFlags, '--name', 'expired-cert', '--fixture-url', fixture.url, '--shards', '4', '--log-level', 'warn'];
  const env = envWith('node', (await badCerts()).expired);
  // Without --allow-unsigned-commands the node stops on a usage error just before it connects.
  const startup = await timedCli(args, env);
  t.is(startup.code, 2, startup.stderr);
  const run = await timedCli([...args, '--allow-unsigned-commands'], env);
  t.not(run.code, 0, run.stderr);
  t.true(run.tookMs - startup.tookMs < PROCESS_CONNECT_MS, `took ${Math.round(run.tookMs)} ms, ${Math.round(startup.tookMs)} ms to start: ${run.stderr}`);
  t.regex(run.stderr, /server refused the client certificate/);
  t.regex(run.stderr, /expired on 2020-01-31/);
  t.false(run.stderr.includes(n().passwords.node));
});
