// The same attack against real `metalfleet node` processes started with --authorized-keys: the
// unsigned delete is refused by whichever node takes it, an operator's signed command goes
// through, and both are in the audit stream the nodes created.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { pack, unpack } from 'msgpackr';
import { shardOf } from '../../src/api/index.ts';
import { subjects } from '../../src/bus/index.ts';
import { AUDIT_MAX_AGE_MS, AUDIT_MAX_BYTES, readAudit, writeNewSigningKey } from '../../src/security/index.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const SHARDS = 16;

if (!natsServerInstalled()) test('cluster security - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

test('cluster security - nodes with --authorized-keys refuse the anonymous delete and take the operator\'s signed power-off; both audited', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-cluster-keys-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const seed = join(dir, 'alice.seed');
  const keys = join(dir, 'authorized-keys');
  await writeFile(keys, `operator ${await writeNewSigningKey(seed)} alice\n`);
  await withCluster(t, { shards: SHARDS, fixture: { latencyMs: 0, demoBehaviours: false }, authorizedKeys: keys }, async (c) => {
    const [victim, target] = await c.applyHosts(2);
    await Promise.all(['a', 'b'].map((n) => c.startNode(n)));
    await waitUntil(async () => [...(await c.statesOf([victim!, target!])).values()].every((s) => s === 'provisioned'), 60_000, 'hosts provisioned', 100);

    const nc = await connect({ servers: c.nats.url });
    try {
      const reply = unpack((await nc.request(subjects().command(shardOf(victim!, SHARDS)), pack({ type: 'delete', host: victim }), { timeout: 10_000 })).data) as { ok: boolean; error?: { kind: string } };
      t.false(reply.ok);
      t.is(reply.error?.kind, 'unauthorized');
    } finally {
      await nc.close();
    }
    const host = await c.store.get(victim!);
    t.is(host?.metadata.deletionTimestamp, undefined, 'the host is not terminating');
    t.is(host?.status?.provisioning.state, 'provisioned');

    const signed = await metalfleet('host', 'power-off', target!, '--nats', c.nats.url, '--shards', String(SHARDS), '--signing-key', seed);
    t.is(signed.code, 0, signed.stderr);
    await waitUntil(async () => (await c.store.get(target!))?.status?.poweredOn === false, 30_000, `${target} powered off`);

    const audit = await readAudit(c.transport, subjects());
    t.like(audit.find((r) => r.host === victim), { command: 'delete', outcome: 'refused', code: 'unauthorized', caller: { kind: 'unsigned' } });
    t.like(audit.find((r) => r.host === target), { command: 'powerOff', outcome: 'applied', caller: { kind: 'signed', name: 'alice', role: 'operator' } });
    t.true(audit.every((r) => r.node === 'a' || r.node === 'b'));
    const shown = await metalfleet('audit', '--host', target!, '--nats', c.nats.url);
    t.is(lines(shown.stdout).length, 1, shown.stdout + shown.stderr);

    // The nodes made the stream with its limits: 30 days, 256 MiB, the cluster's audit subjects.
    const info = JSON.parse(new TextDecoder().decode(await c.transport.request('$JS.API.STREAM.INFO.mf-audit', new Uint8Array(0), { timeoutMs: 5_000 }))) as { config: { subjects: string[]; max_age: number; max_bytes: number; discard: string } };
    t.deepEqual(info.config.subjects, ['mf.audit.>']);
    t.is(info.config.max_age, AUDIT_MAX_AGE_MS * 1_000_000);
    t.is(info.config.max_bytes, AUDIT_MAX_BYTES);
    t.is(info.config.discard, 'old');
  });
});
