// `metalfleet host`: usage mistakes are found before anything is sent, so these need no NATS.
import test from 'ava';
import { buildHostCommands } from '../../src/cli/commands/host.ts';
import { lines, metalfleet } from './run.ts';

// NATS_URL unset and a port nobody listens on: had anything been sent, the command would fail
// with exit 1 (no server), not exit 2.
const NO_NATS = ['--nats', 'nats://127.0.0.1:1', '--timeout', '1'];

test('host - an unknown action is a usage error that lists the actions', async (t) => {
  const r = await metalfleet('host', 'power-cycle', 'fleet/host-0', ...NO_NATS);
  t.is(r.code, 2, r.stderr);
  t.is(r.stdout, '');
  t.regex(r.stderr, /unknown action "power-cycle"/);
  t.regex(r.stderr, /power-on, power-off, reboot, inspect, reprovision, service, pause, unpause, detach, attach, delete/);
});

test('host - a bad host key names the bad part', async (t) => {
  const namespace = await metalfleet('host', 'power-on', 'fleet/host-0', 'Fleet/host-1', ...NO_NATS);
  t.is(namespace.code, 2, namespace.stderr);
  t.regex(namespace.stderr, /host "Fleet\/host-1": namespace "Fleet" must be lower-case/);
  t.notRegex(namespace.stderr, /host-0/);

  const name = await metalfleet('host', 'reboot', 'fleet/Host_1', ...NO_NATS);
  t.is(name.code, 2, name.stderr);
  t.regex(name.stderr, /host "fleet\/Host_1": name "Host_1" must be lower-case/);

  const shape = await metalfleet('host', 'pause', 'host-1', ...NO_NATS);
  t.is(shape.code, 2, shape.stderr);
  t.regex(shape.stderr, /host "host-1": must be "<namespace>\/<name>"/);

  const both = await metalfleet('host', 'pause', 'A/b_c', ...NO_NATS);
  t.is(both.code, 2, both.stderr);
  t.regex(both.stderr, /namespace "A" .*; name "b_c" /);
});

test('host - flags are checked against the command schema', async (t) => {
  const mode = await metalfleet('host', 'reboot', 'fleet/host-0', '--mode', 'cold', ...NO_NATS);
  t.is(mode.code, 2, mode.stderr);
  t.regex(mode.stderr, /--mode: .*"soft"\|"hard"/);
  t.regex(mode.stderr, /\(got "cold"\)/, 'the value given is echoed beside the rule');

  const modeElsewhere = await metalfleet('host', 'power-off', 'fleet/host-0', '--mode', 'hard', ...NO_NATS);
  t.is(modeElsewhere.code, 2, modeElsewhere.stderr);
  t.regex(modeElsewhere.stderr, /--mode applies to reboot only/);

  const id = await metalfleet('host', 'reprovision', 'fleet/host-0', '--request-id', 'has space', ...NO_NATS);
  t.is(id.code, 2, id.stderr);
  t.regex(id.stderr, /--request-id: must be printable ASCII without spaces/);

  const reason = await metalfleet('host', 'inspect', 'fleet/host-0', '--reason', 'x'.repeat(300), ...NO_NATS);
  t.is(reason.code, 2, reason.stderr);
  t.regex(reason.stderr, /--reason: must be at most 256 characters/);
});

test('host - a missing host or action is a usage error too', async (t) => {
  const noHost = await metalfleet('host', 'power-on', ...NO_NATS);
  t.is(noHost.code, 2, noHost.stderr);
  t.regex(noHost.stderr, /missing required argument 'hosts'/);
  const nothing = await metalfleet('host');
  t.is(nothing.code, 2, nothing.stderr);
});

test('host - valid arguments without a NATS server fail with exit 1, naming the server', async (t) => {
  const r = await metalfleet('host', 'power-on', 'fleet/host-0', ...NO_NATS);
  t.is(r.code, 1, r.stderr);
  t.deepEqual(lines(r.stdout), []);
  t.regex(r.stderr, /^metalfleet: cannot reach NATS at nats:\/\/127\.0\.0\.1:1: cannot connect .*is a NATS server running there\?/m, 'the words every command uses');
});

test('host - a kind is named with --kind or as KIND/NAMESPACE/NAME, as manifests, kubectl plurals or short names spell it; none leaves it to the node', (t) => {
  t.deepEqual(buildHostCommands('power-off', ['lab/m-0'], { kind: 'maasmachine' }).map((c) => [c.kind, c.host]), [['MaasMachine', 'lab/m-0']]);
  t.deepEqual(buildHostCommands('pause', ['maasmachines/lab/m-0', 'bmh/lab/m-0', 'lab/h-1'], {}).map((c) => [c.kind, c.host]), [
    ['MaasMachine', 'lab/m-0'], ['BareMetalHost', 'lab/m-0'], [undefined, 'lab/h-1'],
  ]);
  t.false('kind' in (buildHostCommands('release', ['lab/m-0'], {})[0] ?? {}), 'the node decides the default kind');
  t.throws(() => buildHostCommands('pause', ['BareMetalHost/lab/m-0'], { kind: 'MaasMachine' }), { message: 'host "BareMetalHost/lab/m-0" is a BareMetalHost, but --kind says MaasMachine: give one' });
});

test('host - an unknown kind is a usage error naming it and the kinds there are', async (t) => {
  const flag = await metalfleet('host', 'pause', 'lab/m-0', '--kind', 'Pod', ...NO_NATS);
  t.is(flag.code, 2, flag.stderr);
  t.regex(flag.stderr, /--kind: unknown kind "Pod": the kinds are BareMetalHost \(bmh, bmhost\), MaasMachine, MaasCluster/);
  t.throws(() => buildHostCommands('pause', ['pod/lab/m-0'], {}), { message: 'host "pod/lab/m-0": unknown kind "pod": the kinds are BareMetalHost (bmh, bmhost), MaasMachine, MaasCluster' });
  // A companion kind is no actor's: its host is the one to name.
  t.throws(() => buildHostCommands('pause', ['hfs/lab/m-0'], {}), { message: 'host "hfs/lab/m-0": unknown kind "hfs": HostFirmwareSettings is kept by its host\'s actor, so name the host instead; the kinds are BareMetalHost (bmh, bmhost), MaasMachine, MaasCluster' });
});

test('host - service is a BareMetalHost command sent with its request id', (t) => {
  t.deepEqual(buildHostCommands('service', ['lab/h-1'], { requestId: 'fw-1' }), [{ type: 'service', host: 'lab/h-1', requestId: 'fw-1' }]);
  t.throws(() => buildHostCommands('service', ['lab/h-1'], { mode: 'hard' }), { message: '--mode applies to reboot only, not to service' });
});
