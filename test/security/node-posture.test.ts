// startNode as a library: on a shared bus (NATS) it must be told who may send it requests, and
// says so before it opens anything; the embedded single process (a private bus) needs nothing.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { sharedSubstrate, startNode, type NodeConfig } from '../../src/node/index.ts';
import { silentLogger, type KvBucketOptions, type Transport } from '../../src/ports/index.ts';
import { openPosture, parseAuthorizedKeys, UnsafeStart } from '../../src/security/index.ts';
import { connectNats, createMemoryBus, subjects } from '../../src/bus/index.ts';
import { createUser } from '@nats-io/nkeys';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { recordingLogger, type LogLine } from '../support/recording-logger.ts';

const CONFIG: NodeConfig = {
  name: 'lib-node',
  shardCount: 4,
  machine: DEFAULT_MACHINE_CONFIG,
  capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
  supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
  askTimeoutMs: 2_000,
};

test('node posture - a node on a shared bus with neither authorized keys nor allowUnsigned does not start, and opens nothing first', async (t) => {
  const transport = createMemoryBus().connect('n');
  const opened: string[] = [];
  // A shared bus that records every bucket the node would open.
  const watched: Transport = Object.assign(Object.create(transport) as Transport, {
    kv: (bucket: string, options?: KvBucketOptions) => {
      opened.push(bucket);
      return transport.kv(bucket, options);
    },
  });
  // The store the node would run on, opened by its caller elsewhere: the node itself opens nothing.
  const store = (await openNatsStoreOn(createMemoryBus().connect('store'))).resources;
  t.teardown(() => store.close());
  const error = await t.throwsAsync(startNode(CONFIG, sharedSubstrate(watched), { store }, { provisioner: createFixtureProvisioner({ demoBehaviours: false }) }, { log: silentLogger }), { instanceOf: UnsafeStart });
  t.regex(error?.message ?? '', /give --authorized-keys FILE .* or --allow-unsigned-commands/);
  t.false(error?.retryable);
  t.deepEqual(opened, []);
});

// The shipped allow-list (deploy/controller/authorized-keys.yaml) is a comment only: a node
// started with it, or with viewers alone, refuses every command and store change, and said only
// "signed requests required" at info level. It now says so as a warning, at start.
test('node posture - an allow-list with no operator key is a warning at start: every command and store change will be refused', async (t) => {
  if (!natsServerInstalled()) return t.fail('nats-server is missing: this test needs a real server');
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const transport = await connectNats({ servers: nats.url, name: 'posture' });
  t.teardown(() => transport.close());
  const viewer = createUser().getPublicKey();
  for (const [text, warned] of [['# operator UA... alice\n', true], [`viewer ${viewer} vera\n`, true], [`operator ${createUser().getPublicKey()} olga\n`, false]] as const) {
    const lines: LogLine[] = [];
    await openPosture(transport, true, { authorizedKeys: parseAuthorizedKeys(text, 'keys') }, subjects(), recordingLogger(lines), 1);
    const warnings = lines.filter((l) => l.level === 'warn');
    t.is(warnings.length, warned ? 1 : 0, text);
    if (warned) t.regex(warnings[0]!.msg, /no operator key in --authorized-keys: every host command, apply and delete will be refused; add a line "operator <public key> <name>"/);
  }
});

// --authorized-keys with --allow-unsigned-commands (a migration) takes unsigned requests from
// anyone beside the signed ones, and said "signed requests required" at info level, no warning.
test('node posture - an allow-list with --allow-unsigned-commands warns that unsigned requests are taken too, and does not say signed ones are required', async (t) => {
  if (!natsServerInstalled()) return t.fail('nats-server is missing: this test needs a real server');
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const transport = await connectNats({ servers: nats.url, name: 'posture' });
  t.teardown(() => transport.close());
  const lines: LogLine[] = [];
  const keys = parseAuthorizedKeys(`operator ${createUser().getPublicKey()} olga\n`, 'keys');
  await openPosture(transport, true, { authorizedKeys: keys, allowUnsigned: true }, subjects(), recordingLogger(lines), 1);
  const warnings = lines.filter((l) => l.level === 'warn');
  t.is(warnings.length, 1);
  t.regex(warnings[0]!.msg, /unsigned commands allowed beside signed ones \(--allow-unsigned-commands with --authorized-keys\): any NATS client may send host commands and store changes unsigned; they are audited as unsigned\. Drop --allow-unsigned-commands once every sender signs/);
  t.false(lines.some((l) => /signed requests required/.test(l.msg)));
});
