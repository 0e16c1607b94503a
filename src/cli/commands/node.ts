import { hostname } from 'node:os';
import type { Command } from 'commander';
import { createRemoteFixtureProvisioner } from '../../adapters/fixture/remote/index.ts';
import { loadSecretFiles } from '../../adapters/store/nats-secrets.ts';
import { connectNats } from '../../bus/index.ts';
import type { Provisioner } from '../../ports/index.ts';
import { fixtureProvisioner, ironicProvisioner } from '../backends.ts';
import { CliError } from '../cli-error.ts';
import { runClusterNode } from '../cluster/run-node.ts';
import { intFlag, nodeConfig, readEnv } from '../config.ts';
import { createLogger } from '../logger.ts';
import type { NatsFlagValues } from '../nats-options.ts';
import { addNatsFlags, natsOptionsFrom } from '../nats-options.ts';

interface NodeFlags extends NatsFlagValues {
  name?: string;
  shards?: number;
  limit?: number;
  leaseTtl: number;
  heartbeat: number;
  drainTimeout: number;
  replicas: number;
  healthPort?: number;
  fixtureUrl?: string;
  fixtureLatency: number;
  ironic?: string[];
  ironicDriver?: string;
  secrets?: string[];
  ownershipLog?: string;
  logLevel?: string;
}

export function register(program: Command): void {
  addNatsFlags(program
    .command('node')
    .description('run one controller node of a sharded cluster: shards by NATS leases, hosts in NATS KV')
    .option('--name <id>', 'node id, unique in the cluster (letters, digits, - and _; default host-pid)')
    .option('--shards <n>', 'shard count, the same on every node (default METALFLEET_SHARDS or 256)', intFlag('--shards', 1))
    .option('--limit <n>', 'capacity slots per backend pool across the cluster (default PROVISIONING_LIMIT or 20; 0 = unlimited)', intFlag('--limit', 0))
    .option('--lease-ttl <ms>', 'shard and broker lease TTL; a dead node\'s shards move within about this long', intFlag('--lease-ttl', 500), 5_000)
    .option('--heartbeat <ms>', 'membership heartbeat interval', intFlag('--heartbeat', 50), 1_000)
    .option('--drain-timeout <ms>', 'how long a hand-off waits for backend calls in flight', intFlag('--drain-timeout', 0), 10_000)
    .option('--replicas <n>', 'KV replicas of the cluster buckets (3 on a clustered NATS)', intFlag('--replicas', 1), 1)
    .option('--health-port <port>', 'serve /healthz, /readyz and /metrics on this port (0 = any free port)', intFlag('--health-port', 0))
    .option('--fixture-url <url>', 'drive the shared fixture backend at this URL (see `metalfleet fixture-server`)')
    .option('--fixture-latency <ms>', 'latency of the in-process fixture (when no backend is given)', intFlag('--fixture-latency', 0), 100)
    .option('--ironic <url...>', 'drive a real Ironic instead of a fixture')
    .option('--ironic-driver <type>', 'create Ironic nodes as fake-hardware (an Ironic without BMCs)')
    .option('--secrets <path...>', 'Secret manifests (files or folders) with BMC credentials and user data; never stored in NATS')
    .option('--ownership-log <file>', 'append shard ownership records (JSON lines), for tests')
    .option('--log-level <level>', 'log level on stderr (default METALFLEET_LOG_LEVEL or info)'))
    .addHelpText('after', '\nExamples:\n  metalfleet node --nats nats://127.0.0.1:4222 --name a --fixture-url http://127.0.0.1:7070 --health-port 9101\n  NATS_USER=mf NATS_PASSWORD=... metalfleet node --nats nats://nats:4222 --ironic http://ironic:6385\n')
    .action(async (flags: NodeFlags) => {
      const env = readEnv();
      const name = flags.name ?? `${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}`;
      if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new CliError(`--name: "${name}" may hold only letters, digits, "-" and "_"`, 2);
      const log = createLogger(flags.logLevel ?? env.METALFLEET_LOG_LEVEL ?? 'info', { node: name });
      const base = nodeConfig({ name, env, ...(flags.limit !== undefined ? { defaultLimit: flags.limit === 0 ? Number.POSITIVE_INFINITY : flags.limit } : {}) });
      const config = { ...base, shardCount: flags.shards ?? base.shardCount };
      const provisioner = await backend(flags, env);
      const secrets = flags.secrets ? await loadSecretFiles(flags.secrets) : undefined;
      const transport = await connectNats({ ...(await natsOptionsFrom(flags, process.env, name)), onHandlerError: (err, subject) => log.error({ subject, err: String(err) }, 'handler failed') });
      const running = await runClusterNode({
        node: config,
        leaseTtlMs: flags.leaseTtl,
        heartbeatMs: flags.heartbeat,
        drainTimeoutMs: flags.drainTimeout,
        replicas: flags.replicas,
        healthPort: flags.healthPort ?? null,
        ...(flags.ownershipLog ? { ownershipLog: flags.ownershipLog } : {}),
      }, { transport, provisioner, log, ...(secrets ? { secrets } : {}) });
      // One line for whoever started us (tests, scripts): where to find this node.
      process.stdout.write(`${JSON.stringify({ node: name, health: running.health?.url ?? null, shards: config.shardCount, broker: running.isBroker() })}\n`);
      log.info({ shards: config.shardCount, leaseTtlMs: flags.leaseTtl }, 'node started');

      await new Promise<void>((resolve) => {
        let signals = 0;
        const onSignal = (signal: NodeJS.Signals): void => {
          signals += 1;
          // A second signal means "now": skip the hand-off.
          if (signals > 1) process.exit(130);
          log.info({ signal }, 'stopping: handing shards off');
          running.stop({ graceful: true })
            .catch((err: unknown) => log.error({ err: String(err) }, 'graceful stop failed'))
            .finally(() => resolve());
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      await provisioner.close?.();
      await transport.close();
      log.info({}, 'node stopped');
    });
}

async function backend(flags: NodeFlags, env: ReturnType<typeof readEnv>): Promise<Provisioner> {
  if (flags.fixtureUrl && flags.ironic) throw new CliError('--fixture-url and --ironic: choose one backend', 2);
  if (flags.fixtureUrl) {
    try {
      return await createRemoteFixtureProvisioner({ url: flags.fixtureUrl });
    } catch (err) {
      throw new CliError(`--fixture-url ${flags.fixtureUrl}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (flags.ironic) {
    return ironicProvisioner({ urls: flags.ironic, ...(flags.ironicDriver ? { driver: flags.ironicDriver } : {}), imageCheck: false }, env);
  }
  return fixtureProvisioner(flags.fixtureLatency);
}
