// A node whose health port cannot listen (taken by another process, an address this machine does
// not have or cannot resolve) stops with one line naming --health-port and --health-bind, exit 2;
// it used to say only "listen EADDRINUSE: address already in use :::9440" or "getaddrinfo
// ENOTFOUND name", with no word of which setting to change.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { metalfleet } from './run.ts';

const withNats = natsServerInstalled() ? test : test.skip;

withNats('node health listen - a taken port or an unknown bind address names the flags, exit 2, no stack', async (t) => {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const port = String((taken.address() as AddressInfo).port);
  const base = ['node', '--nats', nats.url, '--allow-unsigned-commands', '--shards', '4', '--log-level', 'silent'];
  const cases: Array<[string[], RegExp]> = [
    [['--name', 'taken', '--health-port', port], new RegExp(`^metalfleet: --health-port ${port} --health-bind 127\\.0\\.0\\.1: cannot listen: the port is in use$`, 'm')],
    [['--name', 'nowhere', '--health-port', '0', '--health-bind', 'no-such-host.invalid'], /^metalfleet: --health-port 0 --health-bind no-such-host\.invalid: cannot listen: no such address \(ENOTFOUND\)$/m],
  ];
  for (const [flags, message] of cases) {
    const r = await metalfleet(...base, ...flags);
    t.is(r.code, 2, r.stderr);
    t.regex(r.stderr, message);
    t.notRegex(r.stderr, /\n\s+at /);
  }
});
