// The dashboard's small parts: the command gate, the throughput and history, the Host check.
import test from 'ava';
import { commandGate } from '../../src/ui/index.ts';
import { PictureHistory } from '../../src/ui/history.ts';
import { hostAllowed } from '../../src/ui/host-check.ts';
import { CommandRequest, UI_ACTIONS } from '../../src/ui/command-gate.ts';

test('ui parts - the gate refuses everything when commands are off, and takes only the exact token when on', (t) => {
  const off = commandGate({ enabled: false });
  t.is(off.token, null);
  t.false(off.check('anything').ok);
  const on = commandGate({ enabled: true });
  t.regex(on.token ?? '', /^[A-Za-z0-9_-]{32}$/);
  t.true(on.check(on.token ?? '').ok);
  t.false(on.check(undefined).ok);
  t.false(on.check('').ok);
  t.false(on.check(`${on.token ?? ''}a`).ok);
  t.false(on.check((on.token ?? '').slice(0, -1)).ok);
  t.not(commandGate({ enabled: true }).token, on.token, 'a new token each start');
});

test('ui parts - throughput is hosts reaching provisioned per second over the window, and the history is bounded', (t) => {
  const h = new PictureHistory(10_000, 5);
  t.is(h.add(0, [['available', 10]], 0), 0);
  t.is(h.add(1_000, [['provisioned', 2], ['available', 8]], 2), 2);
  t.is(h.add(2_000, [['provisioned', 6], ['available', 4]], 6), 3);
  // 20 s later the window holds only the last 10 s: 4 more hosts over 10 s.
  h.add(12_000, [['provisioned', 6]], 6);
  t.is(h.add(22_000, [['provisioned', 10]], 10), 0.4);
  for (let i = 0; i < 10; i++) h.add(30_000 + i * 1_000, [['provisioned', 10]], 10);
  t.is(h.list().length, 5);
  t.deepEqual(h.list().at(-1)?.states, { provisioned: 10 });
});

test('ui parts - on a loopback address only requests for a loopback name are answered (DNS rebinding)', (t) => {
  t.true(hostAllowed('127.0.0.1', '127.0.0.1:8090'));
  t.true(hostAllowed('127.0.0.1', 'localhost:8090'));
  t.true(hostAllowed('::1', '[::1]:8090'));
  t.false(hostAllowed('127.0.0.1', 'attacker.example:8090'));
  t.false(hostAllowed('127.0.0.1', undefined));
  t.true(hostAllowed('0.0.0.0', 'dash.example.com'), 'off loopback the operator chose who may reach it');
});

test('ui parts - the page may ask for service, which becomes the service host command', (t) => {
  t.is(UI_ACTIONS.service, 'service');
  t.deepEqual(CommandRequest.parse({ action: 'service', kind: 'BareMetalHost' }), { action: 'service', kind: 'BareMetalHost' });
  t.false(CommandRequest.safeParse({ action: 'flash' }).success);
});
