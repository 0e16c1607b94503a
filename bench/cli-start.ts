// Cold start of the installed CLI (the compiled dist/, as users run it): `--help`, `bmc ADDRESS
// --json`, `validate` of a 100-host file and `hosts` against a running node, each run --runs times
// alternating with `node -e 0`, the floor no Node program starts under. Reports medians.
// Targets: --help and bmc <= 300 ms and <= 5x the floor; validate <= 500 ms.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { createFixtureProvisioner } from '../src/adapters/fixture/index.ts';
import { openNatsStoreOn } from '../src/adapters/store/nats-store.ts';
import { openNodeKvStore } from '../src/cli/node-store.ts';
import { connectNats } from '../src/bus/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../src/machines/bmh/index.ts';
import { sharedSubstrate, startNode } from '../src/node/index.ts';
import { silentLogger } from '../src/ports/index.ts';
import { startNatsServer } from '../test/support/nats-server.ts';
import { round } from './cluster-support.ts';
import { hosts, intFlag, percentile } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'metalfleet.js');

// The user's environment: the compiled CLI, not the test switch to the sources.
function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.METALFLEET_FROM_SOURCE;
  delete env.NODE_OPTIONS;
  return env;
}

// Asynchronous: the node `hosts` asks runs in this process and must answer meanwhile.
function timeOnce(args: readonly string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, env: userEnv() }, (err, _stdout, stderr) => {
      const ms = performance.now() - started;
      if (err) reject(new Error(`node ${args.join(' ')} failed: ${err.message} ${stderr}`));
      else resolve(ms);
    });
  });
}

/** Medians of the command and of the floor, their runs interleaved so load hits both alike. */
async function paired(args: readonly string[], runs: number): Promise<{ medianMs: number; floorMedianMs: number; ratio: number }> {
  const own: number[] = [];
  const floor: number[] = [];
  await timeOnce(args); // the first start fills the OS page cache; what is measured is a warm disk, cold process
  for (let i = 0; i < runs; i++) {
    own.push(await timeOnce(args));
    floor.push(await timeOnce(['-e', '0']));
  }
  const medianMs = percentile(own, 50);
  const floorMedianMs = percentile(floor, 50);
  return { medianMs: round(medianMs, 1), floorMedianMs: round(floorMedianMs, 1), ratio: round(medianMs / floorMedianMs, 2) };
}

export async function run(flags: Record<string, string>): Promise<object> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run npm run build first (npm ci does)');
  const runs = intFlag(flags, 'runs', 15);
  const dir = await mkdtemp(join(tmpdir(), 'mf-cli-start-'));
  const file = join(dir, 'hosts.yaml');
  await writeFile(file, hosts(100, { inspection: true }).map((o) => stringify(o)).join('---\n'));

  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'bench-cli-start' });
  const store = await openNatsStoreOn(transport);
  const applied = await store.apply(hosts(100, { inspection: true }).filter((o) => (o as { kind: string }).kind !== 'Secret'));
  if (!applied.ok) throw new Error('could not apply the bench hosts');
  // The node's one store, as `metalfleet node` opens it.
  const kv = await openNodeKvStore(transport, { log: silentLogger, replicas: 1, maas: false });
  const node = await startNode({
    name: 'bench-cli',
    shardCount: 16,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 3_600_000 },
    capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
    supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 100, maxMs: 30_000 } },
    askTimeoutMs: 5_000,
    // The bench sends no commands; a NATS node must still say who may.
    security: { allowUnsigned: true },
  }, sharedSubstrate(transport), kv.stores, { provisioner: createFixtureProvisioner({ latencyMs: 0, demoBehaviours: false }) }, { log: silentLogger });
  try {
    const help = await paired([BIN, '--help'], runs);
    const bmc = await paired([BIN, 'bmc', '192.0.2.10', '--json'], runs);
    const validate = await paired([BIN, 'validate', file], runs);
    const hostsRun = await paired([BIN, 'hosts', '--nats', nats.url], runs);
    return {
      runs,
      floorMedianMs: help.floorMedianMs,
      help,
      bmc,
      validate100: validate,
      hosts: hostsRun,
      targetsMet: help.medianMs <= 300 && help.ratio <= 5 && bmc.medianMs <= 300 && bmc.ratio <= 5 && validate.medianMs <= 500,
    };
  } finally {
    await node.stop({ graceful: false }).catch(() => undefined);
    await kv.close();
    await transport.close().catch(() => undefined);
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
