import test from 'ava';
import { eventOf, targetAfter, transition } from '../support/ironic-api/state-machine.ts';

// The transition table against ironic/common/states.py (21.4.0, 23.0.0) and
// state_machine.py (29.0.0): what each release allows.

test('ironic-api state machine - the provisioning cycle metalfleet drives, on 21.4 (1.82)', (t) => {
  const cycle: [string, string, string][] = [
    ['enroll', 'manage', 'verifying'], ['verifying', 'done', 'manageable'],
    ['manageable', 'inspect', 'inspecting'], ['inspecting', 'done', 'manageable'],
    ['manageable', 'provide', 'cleaning'], ['cleaning', 'done', 'available'],
    ['available', 'deploy', 'deploying'], ['deploying', 'done', 'active'],
    ['active', 'delete', 'deleting'], ['deleting', 'clean', 'cleaning'],
    ['manageable', 'clean', 'cleaning'], ['cleaning', 'manage', 'manageable'], ['clean failed', 'manage', 'manageable'],
    ['manageable', 'adopt', 'adopting'], ['adopting', 'done', 'active'],
  ];
  for (const [from, event, to] of cycle) t.is(transition(from as never, event, 82) as string | null, to, `${from} --${event}-->`);
});

test('ironic-api state machine - servicing exists from 23.0.0 (1.87) only', (t) => {
  t.is(eventOf('service', 82), 'service', '21.4 has no such verb: the target is the event name, which nothing accepts');
  t.is(transition('active', 'service', 82), null);
  t.is(transition('active', 'service', 86), null);
  t.is(transition('active', 'service', 87), 'servicing');
  t.is(transition('servicing', 'wait', 87), 'service wait');
  t.is(transition('service wait', 'resume', 87), 'servicing');
  t.is(transition('servicing', 'done', 87), 'active');
  t.is(transition('servicing', 'fail', 87), 'service failed');
  t.is(transition('service wait', 'abort', 87), 'service failed');
  t.is(transition('service failed', 'service', 87), 'servicing', 'a failed service may be retried');
  t.is(transition('service failed', 'delete', 87), null, '23.0.0: no teardown from service failed');
  t.is(transition('service failed', 'delete', 96), 'deleting', '29.0.0 adds it');
  t.is(transition('service failed', 'abort', 96), null, 'abort to active is newer than 29.0.0');
});

test('ironic-api state machine - invalid transitions are refused', (t) => {
  t.is(transition('enroll', 'provide', 87), null);
  t.is(transition('active', 'manage', 87), null);
  t.is(transition('active', 'abort', 87), null);
  t.is(transition('available', 'service', 87), null, 'only an active node is serviced');
  t.is(transition('clean wait', 'abort', 82), 'clean failed');
  t.is(transition('cleaning', 'hold', 82), null, 'hold states arrive with 22.1.0');
  t.is(transition('cleaning', 'hold', 86), 'clean hold');
});

test('ironic-api state machine - target_provision_state follows fsm.py', (t) => {
  t.is(targetAfter('verifying'), 'manageable');
  t.is(targetAfter('cleaning'), 'available', 'automated clean');
  t.is(targetAfter('cleaning', 'manageable'), 'manageable', 'manual clean');
  t.is(targetAfter('servicing'), 'active');
  t.is(targetAfter('service failed'), 'active');
  t.is(targetAfter('active'), null, 'a stable state clears it');
  t.is(targetAfter('manageable', 'manageable'), null);
});
