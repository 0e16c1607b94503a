// One real nats-server with one node's command server on it, checking signatures against an
// allow-list of an operator (alice) and a viewer (victor), and writing the audit stream. Keys are
// made with `writeNewSigningKey`, as `metalfleet keygen` makes them. Everything the node logs is kept.
import type { ExecutionContext } from 'ava';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import type { BareMetalHost } from '../../src/api/index.ts';
import { connectNats, subjects } from '../../src/bus/index.ts';
import { startCommandServer, type CommandServer } from '../../src/cluster/command-server.ts';
import type { Logger, Transport } from '../../src/ports/index.ts';
import {
  loadSigningKey, openAuditLog, openNonceLedger, parseAuthorizedKeys, signedGuard, writeNewSigningKey, type AuditLog, type SigningKey,
} from '../../src/security/index.ts';
import { makeHost } from '../support/bmh.ts';
import { startNatsServer, type NatsServer } from '../support/nats-server.ts';

export const SHARDS = 16;

export interface SecurityWorld {
  nats: NatsServer;
  dir: string;
  node: Transport;
  store: NatsStore;
  server: CommandServer;
  /** The node's audit log (flush() writes the refusals counted so far). */
  audit: AuditLog;
  /** A client connection of the metalfleet kind (sendCommand). */
  client: Transport;
  /** A plain NATS client, as an attacker would use. */
  raw: NatsConnection;
  operator: SigningKey;
  viewer: SigningKey;
  stranger: SigningKey;
  /** Seed file of each key, and the seeds' text (for the "never shown" checks). */
  seedFiles: { operator: string; viewer: string; stranger: string };
  seeds(): Promise<string[]>;
  authorizedKeysFile: string;
  /** Every object the node logged, as JSON. */
  logLines: string[];
  /** A provisioned host with the controller's finalizer, in the store. */
  provisioned(name: string): Promise<string>;
}

function recordingLogger(lines: string[], bindings: Record<string, unknown> = {}): Logger {
  const write = (level: string) => (obj: object, msg?: string): void => void lines.push(JSON.stringify({ level, ...bindings, ...obj, msg }));
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (b) => recordingLogger(lines, { ...bindings, ...b }) };
}

export async function securityWorld(t: ExecutionContext): Promise<SecurityWorld> {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'mf-security-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const seedFiles = { operator: join(dir, 'alice.seed'), viewer: join(dir, 'victor.seed'), stranger: join(dir, 'mallory.seed') };
  const publicKeys = {
    operator: await writeNewSigningKey(seedFiles.operator),
    viewer: await writeNewSigningKey(seedFiles.viewer),
    stranger: await writeNewSigningKey(seedFiles.stranger),
  };
  const authorizedKeysFile = join(dir, 'authorized-keys');
  const allowList = `# who may command this cluster\noperator ${publicKeys.operator} alice\nviewer ${publicKeys.viewer} victor\n`;
  await writeFile(authorizedKeysFile, allowList);

  const logLines: string[] = [];
  const log = recordingLogger(logLines);
  const node = await connectNats({ servers: nats.url, name: 'node-a' });
  t.teardown(() => node.close());
  const store = await openNatsStoreOn(node);
  t.teardown(() => store.close());
  const guard = signedGuard({ keys: parseAuthorizedKeys(allowList, authorizedKeysFile), nonces: await openNonceLedger(node, 120_000) });
  const audit = await openAuditLog(node, subjects(), log);
  const server = startCommandServer({ transport: node, store: store.resources, shardCount: SHARDS, log, guard, audit, node: 'node-a' });
  t.teardown(() => server.close());
  const client = await connectNats({ servers: nats.url, name: 'cli' });
  t.teardown(() => client.close());
  const raw = await connect({ servers: nats.url });
  t.teardown(() => raw.close());

  return {
    nats, dir, node, store, server, audit, client, raw,
    operator: await loadSigningKey(seedFiles.operator),
    viewer: await loadSigningKey(seedFiles.viewer),
    stranger: await loadSigningKey(seedFiles.stranger),
    seedFiles,
    seeds: async () => Promise.all(Object.values(seedFiles).map(async (f) => (await readFile(f, 'utf8')).trim())),
    authorizedKeysFile,
    logLines,
    async provisioned(name) {
      const host = makeHost({ status: { provisioning: { state: 'provisioned', ID: `node-${name}` }, poweredOn: true } });
      const object: BareMetalHost = { ...host, metadata: { name, namespace: 'metal3' } };
      const applied = await store.apply([object], 'security-test');
      if (!applied.ok) throw new Error(JSON.stringify(applied.issues));
      const key = `metal3/${name}`;
      await store.addFinalizer(key, 'baremetalhost.metal3.io');
      await store.writeStatus(key, host.status!);
      return key;
    },
  };
}
