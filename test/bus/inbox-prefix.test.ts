// Each NATS user's replies under its own prefix (issue 33.1): what the client asks for is what the
// shipped permissions (deploy/nats/config.yaml) let only that user subscribe to.
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { inboxPrefixFor } from '../../src/bus/inbox-prefix.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';

test('inbox prefix - a user login asks for replies under _INBOX_<user>; token, nkey and creds logins keep the default', (t) => {
  t.is(inboxPrefixFor({ user: 'viewer', pass: 'x' }), '_INBOX_viewer');
  t.is(inboxPrefixFor({ token: 'x' }), undefined);
  t.is(inboxPrefixFor(undefined), undefined);
});

test('inbox prefix - a user name that is not one subject token is refused before connecting', async (t) => {
  // "ops.x" would ask for _INBOX_ops.x.*, inside user "ops"'s _INBOX_ops.>.
  for (const user of ['ops.x', 'a*', 'b>', 'with space']) {
    const error = await t.throwsAsync(connectNats({ servers: 'nats://127.0.0.1:1', name: 't', auth: { user, pass: 'p' }, maxReconnectAttempts: 0 }));
    t.like(error, { name: 'BusConnectError', retryable: false }, user);
    t.regex(error?.message ?? '', /cannot name a private inbox/, user);
  }
});

const withServer = natsServerInstalled() || process.env.CI === 'true' ? test : test.skip;

withServer('inbox prefix - requests and inboxes of a user connection work under a server that allows that user only its own prefix', async (t) => {
  const s = await startNatsServer({ config: 'authorization { users = [ { user: alice, password: pw, permissions: { publish: ">", subscribe: ["echo", "_INBOX_alice.>"] } } ] }' });
  t.teardown(() => s.dispose());
  const nc = await connectNats({ servers: s.url, name: 'alice', auth: { user: 'alice', pass: 'pw' }, maxReconnectAttempts: 0 });
  t.teardown(() => nc.close());
  nc.subscribe('echo', (m) => m.respond(m.data));
  t.is(new TextDecoder().decode(await nc.request('echo', new TextEncoder().encode('hi'), { timeoutMs: 2_000 })), 'hi');
  t.regex(nc.newInbox(), /^_INBOX_alice\.\w+$/);
});
