// NATS server URLs that went wrong quietly: tls:// to a server without TLS connected in plain
// text (nats.js reads TLS from its options, not from the scheme), and a URL missing its "//", its
// host or a valid port was dialled and failed as "getaddrinfo ENOTFOUND nats" or "Invalid URL",
// followed by "is a NATS server running there?". Both now say what is wrong, without a password.
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';
import { BusConnectError, connectNats } from '../../src/bus/nats-transport.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { metalfleet } from './run.ts';

const NO_ENV: NodeJS.ProcessEnv = {};

test('nats urls - tls:// to a server without TLS is refused, never connected in plain text', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const plain = await connectNats({ servers: server.url, name: 'plain' });
  await plain.close();
  const tlsUrl = `tls://127.0.0.1:${server.port}`;
  const error = await t.throwsAsync(connectNats({ servers: tlsUrl, name: 'tls-scheme', maxReconnectAttempts: 1 }), { instanceOf: BusConnectError });
  t.regex(error.message, /TLS/);
  t.false(error.retryable);
  const run = await metalfleet('hosts', '--nats', tlsUrl);
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, /TLS setup failed \(server does not support 'tls'\)/);
});

test('nats urls - a malformed server URL is a usage error naming what is wrong, never the password', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['nats:/127.0.0.1:4223', /--nats: "nats:\/127\.0\.0\.1:4223" is not a NATS server URL: "\/\/" is missing after "nats:"/],
    ['nats://:4223', /--nats: "nats:\/\/:4223" is not a NATS server URL: it names no host/],
    ['nats://127.0.0.1:99999', /--nats: "nats:\/\/127\.0\.0\.1:99999" is not a NATS server URL: the port must be 1-65535/],
    ['nats://admin:s3cret-Pw@:4223', /--nats: "nats:\/\/\*\*\*@:4223" is not a NATS server URL: it names no host/],
    ['nats://admin:s3cret-Pw/x@127.0.0.1:0', /--nats: "nats:\/\/\*\*\*@127\.0\.0\.1:0" is not a NATS server URL: the port must be 1-65535/],
  ];
  for (const [url, message] of cases) {
    const error = await t.throwsAsync(natsOptionsFrom({ nats: `nats://127.0.0.1:4223,${url}` }, NO_ENV, 'x'), { instanceOf: CliError });
    t.regex(error.message, message, url);
    t.false(error.message.includes('s3cret-Pw'));
  }
  // Host:port without a scheme, IPv6 and names are taken as before.
  for (const url of ['127.0.0.1:4223', 'localhost', 'nats://[::1]:4223', 'tls://nats.example:443', 'nats://u:p@nats.example']) {
    await t.notThrowsAsync(natsOptionsFrom({ nats: url }, NO_ENV, 'x'), url);
  }
  const run = await metalfleet('hosts', '--nats', 'nats:/127.0.0.1:4223');
  t.is(run.code, 2, run.stderr);
  t.regex(run.stderr, /^metalfleet: --nats: "nats:\/127\.0\.0\.1:4223" is not a NATS server URL/m);
});
