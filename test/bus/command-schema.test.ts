import test from 'ava';
import { HOST_COMMAND_TYPES, HostCommand, HostCommandError, HostCommandReply } from '../../src/bus/messages/index.ts';

// The first problem zod finds, as a sender would read it: the field's path and what is wrong.
function problem(input: unknown): { path: string; message: string } {
  const r = HostCommand.safeParse(input);
  if (r.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  const issue = r.error.issues[0]!;
  return { path: issue.path.map(String).join('.'), message: issue.message };
}

test('command schema - every command type parses with only host', (t) => {
  for (const type of HOST_COMMAND_TYPES) {
    const r = HostCommand.safeParse({ type, host: 'metal3/worker-0' });
    t.true(r.success, type);
    t.is(r.data?.type, type);
  }
});

test('command schema - reboot defaults to soft and takes hard', (t) => {
  t.deepEqual(HostCommand.parse({ type: 'reboot', host: 'lab/h-1' }), { type: 'reboot', host: 'lab/h-1', mode: 'soft' });
  t.deepEqual(HostCommand.parse({ type: 'reboot', host: 'lab/h-1', mode: 'hard' }), { type: 'reboot', host: 'lab/h-1', mode: 'hard' });
});

test('command schema - requestId and reason are kept, at their limits', (t) => {
  const full = { type: 'reprovision', host: 'lab/rack-1.node-2', requestId: 'a'.repeat(64), reason: 'r'.repeat(256) };
  t.deepEqual(HostCommand.parse(full), full);
  t.true(HostCommand.safeParse({ type: 'powerOn', host: `${'n'.repeat(63)}/${'a'.repeat(253)}` }).success);
});

test('command schema - unknown fields are refused and named', (t) => {
  t.deepEqual(problem({ type: 'powerOn', host: 'lab/h-1', force: true }), { path: '', message: 'Unrecognized key: "force"' });
  // mode belongs to reboot only.
  t.regex(problem({ type: 'powerOff', host: 'lab/h-1', mode: 'hard' }).message, /Unrecognized key: "mode"/);
});

test('command schema - an unknown or missing type lists the known ones', (t) => {
  for (const input of [{ type: 'rebuild', host: 'lab/h-1' }, { host: 'lab/h-1' }]) {
    const p = problem(input);
    t.is(p.path, 'type');
    t.is(p.message, `must be one of ${HOST_COMMAND_TYPES.join(', ')}`);
  }
});

test('command schema - bad host keys say which part is wrong', (t) => {
  const cases: Array<[string, RegExp]> = [
    ['worker-0', /must be "<namespace>\/<name>", e\.g\. "metal3\/worker-0"; got "worker-0"/],
    ['a/b/c', /must be "<namespace>\/<name>"/],
    ['/worker-0', /namespace "" is empty/],
    ['lab/', /name "" is empty/],
    ['Lab/worker-0', /namespace "Lab" must be lower-case letters, digits and "-"/],
    ['lab.x/worker-0', /namespace "lab\.x" must be/],
    ['lab/worker_0', /name "worker_0" must be lower-case letters, digits, "-" and "\."/],
    ['lab/-worker', /name "-worker" must be/],
    ['lab/a..b', /name "a\.\.b" must be/],
    [`${'n'.repeat(64)}/w`, /namespace "n+" is 64 characters long \(at most 63\)/],
    [`lab/${'a'.repeat(254)}`, /name "a+" is 254 characters long \(at most 253\)/],
  ];
  for (const [host, re] of cases) {
    const p = problem({ type: 'powerOn', host });
    t.is(p.path, 'host', host);
    t.regex(p.message, re, host);
  }
});

test('command schema - oversized or malformed strings are refused with their field', (t) => {
  t.deepEqual(problem({ type: 'powerOn', host: 'lab/h-1', requestId: 'x'.repeat(65) }), { path: 'requestId', message: 'must be at most 64 characters' });
  t.deepEqual(problem({ type: 'powerOn', host: 'lab/h-1', requestId: '' }), { path: 'requestId', message: 'must not be empty; leave requestId out instead' });
  t.deepEqual(problem({ type: 'powerOn', host: 'lab/h-1', requestId: 'has space' }), { path: 'requestId', message: 'must be printable ASCII without spaces' });
  t.deepEqual(problem({ type: 'powerOn', host: 'lab/h-1', requestId: 'line\nbreak' }), { path: 'requestId', message: 'must be printable ASCII without spaces' });
  t.deepEqual(problem({ type: 'powerOn', host: 'lab/h-1', reason: 'r'.repeat(257) }), { path: 'reason', message: 'must be at most 256 characters' });
});

test('command schema - wrong types are refused with their field', (t) => {
  t.is(problem({ type: 'powerOn', host: 7 }).path, 'host');
  t.regex(problem({ type: 'powerOn', host: 7 }).message, /expected string, received number/);
  t.is(problem({ type: 'powerOn' }).path, 'host');
  t.is(problem({ type: 'powerOn', host: 'lab/h-1', requestId: 12 }).path, 'requestId');
  t.is(problem({ type: 'powerOn', host: 'lab/h-1', reason: ['x'] }).path, 'reason');
  const mode = problem({ type: 'reboot', host: 'lab/h-1', mode: 'medium' });
  t.is(mode.path, 'mode');
  t.regex(mode.message, /"soft"\|"hard"/);
  t.regex(problem('powerOn lab/h-1').message, /expected object, received string/);
  t.regex(problem(null).message, /expected object/);
});

test('command schema - the reply and the error are strict and carry the state and code', (t) => {
  const reply = { host: 'lab/h-1', command: 'powerOff', applied: true, state: 'provisioned', message: 'lab/h-1 set to power off' };
  t.deepEqual(HostCommandReply.parse(reply), reply);
  t.false(HostCommandReply.safeParse({ ...reply, state: 'rebooting' }).success);
  t.false(HostCommandReply.safeParse({ ...reply, extra: 1 }).success);
  t.true(HostCommandReply.safeParse({ ...reply, state: '' }).success);
  const error = { code: 'conflict', message: 'lab/h-1 is inspecting', retryable: false };
  t.deepEqual(HostCommandError.parse(error), error);
  t.false(HostCommandError.safeParse({ ...error, code: 'timeout' }).success);
});
