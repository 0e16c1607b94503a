// One root error type and one errorMessage (issue 29.6): what errorMessage gives for anything
// thrown, the root's fields, and that every error class of ours is a MetalfleetError with a code.
import test from 'ava';
import { errorMessage, MetalfleetError } from '../../src/api/index.ts';
import { BmcAddressError } from '../../src/api/bmc/errors.ts';
import { ProviderIdError } from '../../src/api/maas/provider-id.ts';
import { CrdSchemaError } from '../../src/api/crd/structural.ts';
import { BusError, KvConflict, KvUnavailable, StaleFence, StaleOwner, StoreError } from '../../src/ports/index.ts';
import { RemoteError } from '../../src/bus/index.ts';
import { ActorError, ActorStopped, AskTimeout, BehaviorError, MailboxFull, SpawnFailed } from '../../src/actors/runtime/errors.ts';
import { PluginError } from '../../src/plugin/plugin-error.ts';
import { CliError } from '../../src/cli/cli-error.ts';
import { IntrospectUnavailable, NotFound } from '../../src/cluster/introspect/client.ts';
import { LeaseNotHeld } from '../../src/adapters/ironic/provisioner/owner-fence.ts';
import { TransportError } from '../../src/adapters/http/transport.ts';
import { IronicError } from '../../src/adapters/ironic/client/errors.ts';
import { MaasError } from '../../src/adapters/maas/client/errors.ts';
import { KubeCallError } from '../../src/adapters/kube/errors.ts';
import { LeaderElectionConfigError } from '../../src/adapters/kube/leader-election.ts';
import { WebhookTlsError } from '../../src/adapters/kube/webhook/tls-files.ts';
import { HttpError } from '../../src/adapters/kube/webhook/route.ts';
import { FixtureOptionsError } from '../../src/adapters/fixture/options.ts';
import { RemoteFixtureError } from '../../src/adapters/fixture/remote/client.ts';
import { UnsafeStart } from '../../src/security/node-posture.ts';
import { AuditUnavailable } from '../../src/security/audit-log.ts';
import { KeyFileError, RequestRefused } from '../../src/security/security-error.ts';
import { UiAssetsMissing } from '../../src/ui/assets.ts';

test('metalfleet error - errorMessage of an Error, a MetalfleetError and a string', (t) => {
  t.is(errorMessage(new Error('disk full')), 'disk full');
  t.is(errorMessage(new TypeError('')), '', 'an empty message stays empty');
  t.is(errorMessage(new MetalfleetError('timeout', 'no answer within 5 s', true)), 'no answer within 5 s');
  t.is(errorMessage('plain text'), 'plain text');
});

test('metalfleet error - errorMessage of other values never throws and never dumps an object', (t) => {
  t.is(errorMessage(undefined), 'undefined');
  t.is(errorMessage(null), 'null');
  t.is(errorMessage(42), '42');
  t.is(errorMessage(10n), '10');
  t.is(errorMessage(Symbol('s')), 'Symbol(s)');
  // A thrown object may hold a secret: its fields are never spelled out.
  t.is(errorMessage({ password: 'hunter2' }), '[object Object]');
  t.is(errorMessage(Object.create(null)), 'a thrown object', 'String() of a null-prototype object throws');
  t.is(errorMessage({ toString: () => { throw new Error('boom'); } }), 'a thrown object');
  t.is(errorMessage({ toString: () => 'custom' }), 'custom');
});

test('metalfleet error - the root carries code, retryable, retryAfterMs and cause', (t) => {
  const cause = new Error('ECONNRESET');
  const e = new MetalfleetError('unavailable', 'MAAS is restarting', true, 2_000, { cause });
  t.true(e instanceof Error);
  t.is(e.name, 'MetalfleetError');
  t.is(e.code, 'unavailable');
  t.is(e.message, 'MAAS is restarting');
  t.true(e.retryable);
  t.is(e.retryAfterMs, 2_000);
  t.is(e.cause, cause);
  const plain = new MetalfleetError('bad-request', 'no', false);
  t.false(plain.retryable);
  t.is(plain.retryAfterMs, undefined);
});

const fence = { shard: 3, epoch: 4, holder: 'node-a' };
const ironicDetails = { code: 'locked', status: 409, retryable: true, call: 'PUT /v1/nodes/x', route: 'PUT /v1/nodes/{node}', ironicMessage: null, requestId: null, attempts: 5 } as const;
const maasDetails = { code: 'no-match', status: 409, retryable: false, maasMessage: '', call: 'POST /machines/ op=allocate', route: 'POST /machines/ op=allocate', attempts: 1 } as const;

// [error, its name, its code, retryable]: each class keeps its own name and says whether to retry.
const MIGRATED: Array<[Error, string, string, boolean]> = [
  [new BusError('timeout', 'mf.x', 'no reply'), 'BusError', 'timeout', true],
  [new BusError('forbidden', 'mf.x', 'denied'), 'BusError', 'forbidden', false],
  [new KvConflict('b', 'k', 'wrong last sequence'), 'KvConflict', 'kvConflict', true],
  [new KvUnavailable('b', 'disconnected'), 'KvUnavailable', 'kvUnavailable', true],
  [new StaleOwner('BareMetalHost ns/h', { holder: 'node-b', shard: 3, epoch: 9 }, fence), 'StaleOwner', 'staleOwner', true],
  [new StoreError('KV timeout', true), 'StoreError', 'store', true],
  [new StaleFence('ns/h', fence, 7), 'StaleFence', 'staleFence', false],
  [new RemoteError('notFound', 'no such host', false, 'mf.cmd'), 'RemoteError', 'notFound', false],
  [new ActorError('x', true, '/a'), 'ActorError', 'actor', true],
  [new AskTimeout('/a', 100), 'AskTimeout', 'askTimeout', true],
  [new ActorStopped('/a'), 'ActorStopped', 'actorStopped', false],
  [new MailboxFull('/a', 10), 'MailboxFull', 'mailboxFull', true],
  [new SpawnFailed('/a', 'taken'), 'SpawnFailed', 'spawnFailed', false],
  [new BehaviorError('/a', 'undefined state'), 'BehaviorError', 'behavior', false],
  [new BmcAddressError('missing', 'empty address', ''), 'BmcAddressError', 'missing', false],
  [new ProviderIdError('empty', 'empty providerID', ''), 'ProviderIdError', 'empty', false],
  [new CrdSchemaError('spec.x', 'a union'), 'CrdSchemaError', 'crdSchema', false],
  [new PluginError('p', 'failed to load'), 'PluginError', 'plugin', false],
  [new CliError('bad flag', 2), 'CliError', 'cli', false],
  [new IntrospectUnavailable('no NATS'), 'IntrospectUnavailable', 'introspectUnavailable', true],
  [new NotFound('ns/h', 'no node knows it', true), 'NotFound', 'notFound', true],
  [new LeaseNotHeld('lease lost'), 'LeaseNotHeld', 'leaseNotHeld', true],
  [new TransportError({ kind: 'timeout', timeoutMs: 5 }, false), 'TransportError', 'timeout', true],
  [new IronicError('node locked', ironicDetails), 'IronicError', 'locked', true],
  [new MaasError('no machine matches', maasDetails), 'MaasError', 'no-match', false],
  [new KubeCallError('GET x', 503, 'ServiceUnavailable', 'down'), 'KubeCallError', 'kubeCall', true],
  [new KubeCallError('PUT x', 409, 'Conflict', 'stale'), 'KubeCallError', 'kubeCall', false],
  [new KubeCallError('GET x', null, '', 'refused'), 'KubeCallError', 'kubeCall', true],
  [new LeaderElectionConfigError('bad timing'), 'LeaderElectionConfigError', 'leaderElectionConfig', false],
  [new WebhookTlsError('cert', '/tls.crt', 'unreadable'), 'WebhookTlsError', 'webhookTls', false],
  [new HttpError(400, 'bad review'), 'HttpError', 'http', false],
  [new FixtureOptionsError('bad options', ['x']), 'FixtureOptionsError', 'fixtureOptions', false],
  [new RemoteFixtureError('unreachable', true), 'RemoteFixtureError', 'remoteFixture', true],
  [new UnsafeStart(), 'UnsafeStart', 'unsafeStart', false],
  [new AuditUnavailable('no stream'), 'AuditUnavailable', 'auditUnavailable', true],
  [new RequestRefused('forbidden', 'viewers may not'), 'RequestRefused', 'forbidden', false],
  [new KeyFileError('/k', 'unreadable'), 'KeyFileError', 'keyFile', false],
  [new UiAssetsMissing('not built'), 'UiAssetsMissing', 'uiAssetsMissing', false],
];

test('metalfleet error - every error class of ours is a MetalfleetError with its name, a code and retryable', (t) => {
  for (const [error, name, code, retryable] of MIGRATED) {
    t.true(error instanceof MetalfleetError, name);
    if (!(error instanceof MetalfleetError)) continue;
    t.is(error.name, name);
    t.is(error.code, code, `${name}.code`);
    t.is(error.retryable, retryable, `${name}.retryable`);
    t.is(errorMessage(error), error.message);
  }
});

test('metalfleet error - the classes keep their own fields', (t) => {
  const fenced = new StaleFence('ns/h', fence, 7);
  t.true(fenced instanceof StoreError);
  t.deepEqual([fenced.fence, fenced.current], [fence, 7]);
  const bus = new BusError('noResponders', 'mf.x', 'nobody', { cause: 'c' });
  t.deepEqual([bus.kind, bus.subject, bus.message, bus.cause], ['noResponders', 'mf.x', 'mf.x: nobody', 'c']);
  const ironic = new IronicError('node locked', ironicDetails);
  t.deepEqual([ironic.status, ironic.attempts, ironic.call], [409, 5, 'PUT /v1/nodes/x']);
  const maas = new MaasError('bad form', { ...maasDetails, code: 'bad-request', status: 400, formErrors: { zone: ['unknown'] } });
  t.deepEqual(maas.formErrors, { zone: ['unknown'] });
  t.is(new CliError('x', 2).exitCode, 2);
  t.is(new AskTimeout('/a', 100).path, '/a');
});
