import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { systemClock } from '../../node/index.ts';
import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { createRemoteFixtureProvisioner } from '../../adapters/fixture/remote/index.ts';
import type { KubeAdapter, loadKubeConfig, startLeaderElector } from '../../adapters/kube/index.ts';
import { createMaasClient } from '../../adapters/maas/client/index.ts';
import { createMaasDriver } from '../../adapters/maas/driver/index.ts';
import { loadSecretFiles } from '../../adapters/store/nats-secrets.ts';
import { BusConnectError, connectNats } from '../../bus/index.ts';
import type { Logger, MaasDriver, Provisioner } from '../../ports/index.ts';
import { fixtureBuiltin, ironicBuiltin } from '../builtin-provisioners.ts';
import type { ProvisionerFlags, SelectedProvisioner } from '../provisioners.ts';
import { addProvisionerFlags, selectProvisioner } from '../provisioners.ts';
import { readMaasKeyFile } from '../maas-key-file.ts';
import { CliError } from '../cli-error.ts';
import type { HealthServer } from '../../adapters/observe/index.ts';
import type { Node, NodeConfig, NodeStores, Substrate } from '../../node/index.ts';
import { clusterTiming, DEFAULT_CLUSTER_TIMING, HealthListenError, leaseTtlWarning, memorySubstrate, replicasWarning, sharedSubstrate, startNode } from '../../node/index.ts';
import { collectMaxCalls, MAX_CALLS_HELP, parseMaxCalls } from '../max-calls.ts';
import { openNodeKvStore, type NodeKvStore } from '../node-store.ts';
import { intFlag, msFlag, nodeConfig, portFlag, readEnv, replicasFlag, shardsFlag } from '../config.ts';
import { createLogger, logLevelFlag } from '../logger.ts';
import { untilSignalled } from '../signals.ts';
import type { NatsFlagValues } from '../nats-options.ts';
import { addNatsFlags, natsOptionsFrom, signingKeyFrom, UNREACHABLE_HINT } from '../nats-options.ts';
import { checkNatsTlsFiles } from '../nats-tls-flags.ts';
import { readUiToken } from '../ui-token.ts';
import { loadAuthorizedKeys, UnsafeStart } from '../../security/index.ts';
import { errorMessage, redactUrl } from '../../api/index.ts';

interface NodeFlags extends NatsFlagValues, ProvisionerFlags {
  name?: string;
  shards?: number;
  limit?: number;
  // No commander default: its '(default: [])' sat beside the help's own default.
  maxCalls?: string[];
  /** Absent: the default for the buckets' replicas (clusterTiming). */
  leaseTtl?: number;
  heartbeat: number;
  drainTimeout: number;
  replicas: number;
  healthPort?: number;
  healthBind: string;
  uiCommands?: boolean;
  uiTokenFile?: string;
  uiSigningKey?: string;
  fixtureUrl?: string;
  fixtureLatency: number;
  ironic?: string[];
  ironicDriver?: string;
  secrets?: string[];
  ownershipLog?: string;
  logLevel?: string;
  kubeconfig?: string;
  inCluster?: boolean;
  namespace?: string;
  maas?: string;
  maasKey?: string;
  maasKeyFile?: string;
  /** false with --no-hosts. */
  hosts: boolean;
  authorizedKeys?: string;
  allowUnsignedCommands?: boolean;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  leaderElectionId?: string;
  leaderElectionLeaseDuration?: number;
  leaderElectionRenewDeadline?: number;
  leaderElectionRetryPeriod?: number;
}

export function register(program: Command): void {
  addProvisionerFlags(addNatsFlags(program
    .command('node')
    .description(descriptionOf('node'))
    .option('--name <id>', 'node id, unique in the cluster (letters, digits, - and _; default host-pid)')
    .option('--shards <n>', 'shard count, the same on every node (default METALFLEET_SHARDS or 256)', shardsFlag)
    .option('--limit <n>', 'capacity slots per backend pool across the cluster (default PROVISIONING_LIMIT or 20; 0 = unlimited)', intFlag('--limit', 0))
    .option('--max-calls <backend=n>', MAX_CALLS_HELP, collectMaxCalls)
    .option('--lease-ttl <ms>', 'shard and broker lease TTL; a dead node\'s shards move within about this long (default 15000 with --replicas 3, which outlasts a NATS leader election; 5000 on one server)', msFlag('--lease-ttl', 500))
    .option('--heartbeat <ms>', 'membership heartbeat interval', msFlag('--heartbeat', 50), 1_000)
    .option('--drain-timeout <ms>', 'how long a hand-off waits for backend calls in flight', msFlag('--drain-timeout', 0), 10_000)
    .option('--replicas <n>', 'KV replicas of the cluster buckets (3 on a clustered NATS; at most 5)', replicasFlag, 1)
    .option('--health-port <port>', 'serve /healthz, /readyz, /metrics and the dashboard on this port (0 = any free port)', portFlag('--health-port'))
    .option('--health-bind <address>', 'address of the health port (0.0.0.0 for probes and Prometheus from the pod network; the dashboard then answers any Host)', '127.0.0.1')
    .option('--ui-commands', 'allow host commands from the dashboard on the health port; needs --ui-token-file')
    .option('--ui-token-file <file>', 'the token a browser must send with a command (the page asks for it: open …/#token=TOKEN)')
    .option('--ui-signing-key <file>', 'operator nkey seed the dashboard signs its commands with, where nodes take only signed commands')
    .option('--fixture-url <url>', 'drive the shared fixture backend at this URL (see `metalfleet fixture-server`)')
    .option('--fixture-latency <ms>', 'latency of the in-process fixture (when no backend is given)', msFlag('--fixture-latency', 0), 100)
    .option('--ironic <url...>', 'drive a real Ironic instead of a fixture')
    .option('--ironic-driver <type>', 'create Ironic nodes as fake-hardware (an Ironic without BMCs)')
    .option('--secrets <path...>', 'Secret manifests (files or folders) with BMC credentials and user data; never stored in NATS (not with --kubeconfig)')
    .option('--kubeconfig <path>', 'take BareMetalHosts and Secrets from the Kubernetes cluster of this kubeconfig instead of NATS KV')
    .option('--in-cluster', 'as --kubeconfig, with the pod\'s service account')
    .option('--namespace <ns>', 'with --kubeconfig or --in-cluster: watch this namespace only (default: all)')
    .option('--maas <url>', 'also drive MaasMachines and MaasClusters against this MAAS, in every mode (default MAAS_ENDPOINT)')
    .option('--maas-key <key>', 'its API key consumer:token:secret (default: MAAS_API_KEY, better for a real key: a command line shows in ps)')
    .option('--maas-key-file <file>', 'the API key read from this file (a mounted Secret; mode 600 when it is yours), instead of --maas-key')
    .option('--no-hosts', 'with --kubeconfig or --in-cluster and a MAAS: drive MaasMachines and MaasClusters only, no BareMetalHosts (Metal3\'s CRDs need not exist; the clusterctl provider runs so)')
    .option('--authorized-keys <file>', 'with NATS: take host commands and store changes only when signed by a key in this file (lines "<operator|viewer> <public-key> [name]")')
    .option('--allow-unsigned-commands', 'with NATS and no --authorized-keys: take unsigned commands from any NATS client (audited as unsigned)')
    .option('--leader-elect', 'with --kubeconfig or --in-cluster and no NATS: drive hosts only while holding a coordination.k8s.io Lease (the default there)')
    .option('--no-leader-elect', 'without NATS: do not elect a leader (run one replica only)')
    .option('--leader-election-namespace <ns>', 'namespace of the leader Lease (default: --namespace, else the kubeconfig\'s or the pod\'s namespace, else default)')
    .option('--leader-election-id <name>', 'name of the leader Lease (default metalfleet-controller)')
    .option('--leader-election-lease-duration <ms>', 'how long a standby waits, after the Lease last changed, before taking it over (default 15000)', msFlag('--leader-election-lease-duration', 1_000))
    .option('--leader-election-renew-deadline <ms>', 'how long the leader keeps driving without renewing the Lease; below the lease duration (default 10000)', msFlag('--leader-election-renew-deadline', 1))
    .option('--leader-election-retry-period <ms>', 'between tries to take or renew the Lease (default 2000)', msFlag('--leader-election-retry-period', 1))
    .option('--ownership-log <file>', 'append shard ownership records (JSON lines), for tests')
    .option('--log-level <level>', 'log level on stderr (default METALFLEET_LOG_LEVEL or info)', logLevelFlag)))
    .addHelpText('after', [
      '',
      'Modes:',
      '  --nats                      sharded cluster; hosts in NATS KV, Secrets from --secrets',
      '  --nats and --kubeconfig     sharded cluster; hosts and Secrets from Kubernetes (NATS: leases, membership, capacity, commands)',
      '  --kubeconfig, no NATS       one process owns every host; hosts, Secrets and (with --maas) MaasMachines/MaasClusters from Kubernetes',
      '  --kubeconfig --no-hosts     MaasMachines and MaasClusters only (with --maas): no BareMetalHost CRD needed, as the clusterctl provider runs',
      'Every mode runs the same node: leases, shards, the capacity broker, commands and introspection.',
      'With --maas (or MAAS_ENDPOINT), MaasMachines and MaasClusters are sharded with the hosts: a Cluster API cluster is one unit.',
      'Bootstrap data Secrets come from Kubernetes, or from --secrets in the NATS mode.',
      '/readyz answers 503 until every Kubernetes informer has listed its resource.',
      'Without NATS, replicas elect a leader through a Lease: only the holder drives hosts; one that loses it exits.',
      'A NATS node needs --authorized-keys FILE (signed commands only) or, explicitly, --allow-unsigned-commands.',
      '',
      'Examples:',
      '  metalfleet node --nats nats://127.0.0.1:4222 --name a --authorized-keys keys.txt --fixture-url http://127.0.0.1:7070 --health-port 9101',
      '  NATS_USER=mf NATS_PASSWORD=... metalfleet node --nats nats://nats:4222 --authorized-keys /etc/metalfleet/authorized-keys --ironic http://ironic:6385',
      '  metalfleet node --nats nats://nats:4222 --in-cluster --authorized-keys /etc/metalfleet/authorized-keys --ironic http://ironic:6385',
      '  metalfleet node --kubeconfig ~/.kube/config --namespace metal3 --health-port 9101',
      '',
    ].join('\n'))
    .action(async (flags: NodeFlags) => {
      const env = readEnv();
      const name = flags.name ?? `${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}`;
      if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new CliError(`--name: "${name}" may hold only letters, digits, "-" and "_"`, 2);
      const log = createLogger(flags.logLevel ?? env.METALFLEET_LOG_LEVEL ?? 'info', { node: name });
      const calls = parseMaxCalls(flags.maxCalls ?? []);
      const base = nodeConfig({ name, env, calls, ...(flags.limit !== undefined ? { defaultLimit: flags.limit === 0 ? Number.POSITIVE_INFINITY : flags.limit } : {}) });
      const config = { ...base, shardCount: flags.shards ?? base.shardCount };
      const kubeSource = kubeconfigSource(flags);
      const natsWanted = Boolean(flags.nats ?? process.env.NATS_URL);
      if (kubeSource && flags.secrets) throw new CliError('--secrets: with --kubeconfig or --in-cluster, BMC credentials and user data come from Kubernetes Secrets; drop --secrets', 2);
      if (!kubeSource && flags.namespace) throw new CliError('--namespace applies to --kubeconfig or --in-cluster', 2);
      if (!flags.hosts && !kubeSource) throw new CliError('--no-hosts applies to --kubeconfig or --in-cluster (with NATS alone, the hosts are the store\'s)', 2);
      if (!flags.hosts && !(flags.maas ?? env.MAAS_ENDPOINT)) throw new CliError('--no-hosts: without BareMetalHosts a node drives only MAAS; give --maas or MAAS_ENDPOINT', 2);
      // The Kubernetes client (hundreds of modules) is loaded only by a node that uses it.
      const kubeModule = kubeSource ? await import('../../adapters/kube/index.ts') : undefined;
      const kubeConfig = kubeSource && kubeModule ? loadKube(kubeModule.loadKubeConfig, kubeSource) : undefined;
      const election = await leaderElectionFrom(flags, Boolean(kubeSource) && !natsWanted, kubeConfig, name, log);
      const kube = kubeConfig && kubeModule ? kubeModule.createKubeAdapter({ kubeConfig, ...(flags.namespace ? { namespace: flags.namespace } : {}), maas: Boolean(flags.maas ?? env.MAAS_ENDPOINT), hosts: flags.hosts, log, nodeName: name }) : undefined;
      const selected = await backend(flags, env, log);
      const provisioner = selected.provisioner;
      config.machine = { ...config.machine, pluginBmcSchemes: selected.registry.bmcSchemes() };
      const settings: NodeConfig = {
        ...config,
        // Unset on NATS: the default follows --replicas. Without NATS the private bus keeps the
        // 5 s the flag always gave it (no NATS election to outlast there).
        cluster: { ...leaseTtlFlag(flags.leaseTtl, natsWanted), heartbeatMs: flags.heartbeat, drainTimeoutMs: flags.drainTimeout, replicas: flags.replicas },
        healthPort: flags.healthPort ?? null,
        healthBind: flags.healthBind,
        ...(await uiCommandsFrom(flags)),
        ...(flags.ownershipLog ? { ownershipLog: flags.ownershipLog } : {}),
      };
      if (kube && !natsWanted && (flags.authorizedKeys || flags.allowUnsignedCommands)) {
        throw new CliError('--authorized-keys and --allow-unsigned-commands apply to a NATS node; without NATS nobody else can send this node anything', 2);
      }
      if (kube && !natsWanted) {
        await runKubeOnly(flags, env, { name, config: settings, kube, provisioner, log, election });
        return;
      }
      // Flags are checked before anything connects: a bad --maas is a usage error, not a NATS one.
      const maas = await maasDriver(flags, env);
      // Without NATS, natsOptionsFrom below says what is missing first.
      const security = natsWanted ? await requestSecurity(flags) : {};
      const natsOptions = await natsOptionsFrom(flags, process.env, name);
      await checkNatsTlsFiles(flags, process.env);
      const secrets = flags.secrets ? await secretFiles(flags.secrets) : undefined;
      const timing = clusterTiming(settings);
      const unsafeTtl = leaseTtlWarning(timing);
      if (unsafeTtl) log.warn({ leaseTtlMs: timing.leaseTtlMs, replicas: timing.replicas }, unsafeTtl);
      const transport = await connectNats({ ...natsOptions, log, onHandlerError: (err, subject) => log.error({ subject, err: String(err) }, 'handler failed') }).catch((error: unknown) => {
        throw error instanceof BusConnectError && error.retryable ? new CliError(`${errorMessage(error)}${UNREACHABLE_HINT}`) : error;
      });
      const natsCluster = transport.serverCluster ?? null;
      const oneCopy = replicasWarning(natsCluster, timing.replicas);
      if (oneCopy) log.warn({ replicas: timing.replicas, natsCluster: natsCluster?.name }, oneCopy);
      // Hosts (and MAAS kinds) in Kubernetes, or the KV store of every kind the node runs.
      let kv: NodeKvStore | null = null;
      const stores: NodeStores = kube ? { kube } : (kv = await openNodeKvStore(transport, { ...(secrets ? { secrets } : {}), log, replicas: timing.replicas, maas: maas !== null })).stores;
      // Signals are taken from here on, not once start-up is over: a node told to stop while it
      // waits for the broker or takes its shards finishes starting and hands off what it took,
      // instead of dying of the signal with its leases left to expire.
      const signalled = stopSignals(log);
      const node = await startNode({ ...settings, security }, sharedSubstrate(transport), stores, {
        provisioner,
        ...(maas ? { maas: { driver: maas.driver, config: { skipSwap: env.MAAS_SKIP_SWAP } } } : {}),
      }, { log }).catch((err: unknown) => {
        throw healthFlagsError(err) ?? err;
      });
      // One line for whoever started us (tests, scripts): where to find this node.
      process.stdout.write(`${JSON.stringify({ node: name, health: node.health?.url ?? null, shards: config.shardCount, broker: node.isBroker() })}\n`);
      log.info({ shards: config.shardCount, leaseTtlMs: timing.leaseTtlMs }, 'node started');

      const signal = await signalled;
      log.info({ signal }, 'stopping: handing shards off');
      await node.stop({ graceful: true }).catch((err: unknown) => log.error({ err: String(err) }, 'graceful stop failed'));
      await kv?.close();
      maas?.close();
      await provisioner.close?.();
      await transport.close();
      log.info({}, 'node stopped');
    });
}

/** Resolves with the first SIGTERM or SIGINT; a second one means "now": exit 130, skipping the hand-off. */
function stopSignals(log: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      signals += 1;
      if (signals > 1) process.exit(130);
      log.info({ signal }, 'stop asked');
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

// A health port that cannot listen is the operator's setting to change: named, exit 2.
function healthFlagsError(err: unknown): CliError | null {
  if (!(err instanceof HealthListenError)) return null;
  return new CliError(`--health-port ${err.port} --health-bind ${err.bind}: cannot listen: ${err.reason}`, 2);
}

// The --secrets files, read before anything connects: one that is missing or does not parse is a
// usage error naming the flag, not a bare path with exit 1.
async function secretFiles(paths: string[]): Promise<Awaited<ReturnType<typeof loadSecretFiles>>> {
  try {
    return await loadSecretFiles(paths);
  } catch (error) {
    throw new CliError(`--secrets: ${errorMessage(error)}`, 2);
  }
}

// Who may send this node requests (src/security): an allow-list, or unsigned by explicit choice.
async function requestSecurity(flags: NodeFlags): Promise<NonNullable<NodeConfig['security']>> {
  const allowUnsigned = flags.allowUnsignedCommands === true;
  if (!flags.authorizedKeys) {
    if (!allowUnsigned) throw new CliError(new UnsafeStart().message, 2);
    return { allowUnsigned };
  }
  try {
    return { authorizedKeys: await loadAuthorizedKeys(flags.authorizedKeys), allowUnsigned };
  } catch (error) {
    throw new CliError(`--authorized-keys: ${errorMessage(error)}`, 2);
  }
}

function kubeconfigSource(flags: NodeFlags): { kind: 'file'; path: string } | { kind: 'in-cluster' } | undefined {
  if (flags.kubeconfig && flags.inCluster) throw new CliError('--kubeconfig and --in-cluster: choose one', 2);
  if (flags.kubeconfig) return { kind: 'file', path: flags.kubeconfig };
  return flags.inCluster ? { kind: 'in-cluster' } : undefined;
}

type LoadKubeConfig = typeof loadKubeConfig;

function loadKube(load: LoadKubeConfig, source: { kind: 'file'; path: string } | { kind: 'in-cluster' }): ReturnType<LoadKubeConfig> {
  try {
    return load(source);
  } catch (err) {
    throw new CliError(`${source.kind === 'file' ? '--kubeconfig' : '--in-cluster'}: ${errorMessage(err)}`, 2);
  }
}

interface KubeOnlyParts {
  readonly name: string;
  readonly config: NodeConfig;
  readonly kube: KubeAdapter;
  readonly provisioner: Provisioner;
  readonly log: ReturnType<typeof createLogger>;
  /** Starts campaigning for the leader Lease; null with --no-leader-elect. */
  readonly election: StartElection | null;
}

function leaseTtlFlag(given: number | undefined, nats: boolean): { leaseTtlMs?: number } {
  if (given !== undefined) return { leaseTtlMs: given };
  return nats ? {} : { leaseTtlMs: DEFAULT_CLUSTER_TIMING.leaseTtlMs };
}

// Kubernetes without NATS: the same node on a private in-memory bus, so it owns every shard;
// hosts, Secrets and (with a MAAS) MaasMachines and MaasClusters come from Kubernetes. Runs until
// SIGTERM or SIGINT.
async function runKubeOnly(flags: NodeFlags, env: ReturnType<typeof readEnv>, p: KubeOnlyParts): Promise<void> {
  const maas = await maasDriver(flags, env);
  const substrate: Substrate = memorySubstrate();
  const election = p.election?.() ?? null;
  // The line for whoever started us comes before the informers sync (and before the lease is
  // won): /readyz tells when.
  const announce = (health: HealthServer | null): void => {
    process.stdout.write(`${JSON.stringify({ node: p.name, health: health?.url ?? null, shards: p.config.shardCount, mode: 'kubernetes', maas: maas !== null, ...(election ? { lease: election.lease, identity: election.elector.identity } : {}) })}\n`);
  };
  const started = startNode(p.config, substrate, { kube: p.kube }, {
    provisioner: p.provisioner,
    ...(maas ? { maas: { driver: maas.driver, config: { skipSwap: env.MAAS_SKIP_SWAP } } } : {}),
  }, { log: p.log, onHealth: announce, ...(election ? { gate: election.gate } : {}) });
  let running = false;
  const failed = started.then(() => {
    running = true;
    return new Promise<never>(() => undefined);
  }, (err: unknown) => err);
  const outcome = await Promise.race([untilSignalled(), failed]);
  if (typeof outcome !== 'string') {
    await election?.elector.stop({ release: true });
    await p.kube.close();
    maas?.close();
    await p.provisioner.close?.();
    await substrate.transport.close();
    throw healthFlagsError(outcome) ?? new CliError(`node ${p.name} could not start: ${errorMessage(outcome)}`);
  }
  p.log.info({ signal: outcome }, 'stopping');
  // A second signal means "now".
  const now = (): void => process.exit(130);
  process.once('SIGTERM', now);
  process.once('SIGINT', now);
  // A standby gives up waiting (startNode then rejects); a leader drains first, then releases.
  if (election && !election.elector.isLeader()) await election.elector.stop();
  // A leader still listing (CRDs not installed, the API server unreachable) would wait for a sync
  // that may never come: closing the adapter ends that wait (startNode rejects), and the Lease is
  // given up below.
  if (!running) await p.kube.close();
  const node: Node | null = await started.catch(() => null);
  await node?.stop({ graceful: true });
  await election?.elector.stop({ release: true });
  maas?.close();
  await p.provisioner.close?.();
  await substrate.transport.close();
  p.log.info({}, 'node stopped');
}

type Elector = ReturnType<typeof startLeaderElector>;
type StartElection = () => {
  readonly elector: Elector;
  readonly lease: string;
  /** Opens once the Lease is won; `held` is asked before every backend call of every kind. */
  readonly gate: { readonly waitingFor: string; readonly open: Promise<void>; readonly held: () => boolean };
};

/**
 * The leader election of the Kubernetes mode without NATS (on unless --no-leader-elect), checked
 * before anything connects; null when off. Its flags make no sense elsewhere: NATS nodes share
 * the hosts by shard leases in NATS (src/cluster).
 */
async function leaderElectionFrom(flags: NodeFlags, kubeOnly: boolean, kubeConfig: KubeConfig | undefined, name: string, log: Logger): Promise<StartElection | null> {
  const given = ([
    ['--leader-elect', flags.leaderElect === true ? true : undefined], ['--leader-election-namespace', flags.leaderElectionNamespace], ['--leader-election-id', flags.leaderElectionId],
    ['--leader-election-lease-duration', flags.leaderElectionLeaseDuration], ['--leader-election-renew-deadline', flags.leaderElectionRenewDeadline], ['--leader-election-retry-period', flags.leaderElectionRetryPeriod],
  ] as const).filter(([, v]) => v !== undefined).map(([f]) => f);
  if (!kubeOnly || !kubeConfig) {
    if (given.length > 0) throw new CliError(`${given.join(', ')}: leader election applies to --kubeconfig or --in-cluster without NATS (NATS nodes share hosts by shard leases)`, 2);
    return null;
  }
  if (flags.leaderElect === false) return null;
  const m = await import('../../adapters/kube/leader-election.ts');
  const timing = {
    leaseDurationMs: flags.leaderElectionLeaseDuration ?? m.DEFAULT_LEASE_TIMING.leaseDurationMs,
    renewDeadlineMs: flags.leaderElectionRenewDeadline ?? m.DEFAULT_LEASE_TIMING.renewDeadlineMs,
    retryPeriodMs: flags.leaderElectionRetryPeriod ?? m.DEFAULT_LEASE_TIMING.retryPeriodMs,
  };
  try {
    m.checkLeaseTiming(timing);
  } catch (err) {
    throw new CliError(`--leader-election-*: ${errorMessage(err)}`, 2);
  }
  const ref = {
    namespace: flags.leaderElectionNamespace ?? flags.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default',
    name: flags.leaderElectionId ?? 'metalfleet-controller',
  };
  const lease = `${ref.namespace}/${ref.name}`;
  // client-go's identity is hostname + a random id: a restarted process never mistakes the
  // lease its predecessor held for its own.
  const identity = `${name}_${randomUUID()}`;
  return () => {
    const elector = m.startLeaderElector({
      client: m.kubeLeaseClient(kubeConfig, ref), identity, timing, clock: systemClock, log,
      onStartedLeading: () => undefined,
      // Stop driving at once: the process ends, in-flight backend calls with it, before the
      // lease can lapse for a peer (renew deadline < lease duration). A supervisor restarts it
      // as a standby.
      onStoppedLeading: (reason) => {
        process.stderr.write(`metalfleet node ${name}: lost the leader lease ${lease} (${reason}); exiting so that no host is driven without it\n`);
        process.exit(1);
      },
    });
    const gate = {
      get waitingFor(): string {
        const holder = elector.observedHolder();
        const failing = elector.lastError();
        return `waiting for the leader lease ${lease}${holder ? ` (held by ${holder})` : ''}${failing ? `; last try: ${failing}` : ''}`;
      },
      open: elector.elected,
      // Not starting before the Lease is won is the gate; this is the second guard, for a process
      // whose loop stalled past its renew deadline (its deadline timer fires late, perhaps after
      // I/O callbacks that would call a backend). The node asks it with each shard's lease.
      held: () => elector.holdsLease(),
    };
    return { elector, lease, gate };
  };
}

/** Where the MAAS key came from, for the hint when MAAS rejects it (never the key itself). */
export function maasKeySource(flags: Pick<NodeFlags, 'maasKeyFile' | 'maasKey'>): string {
  const file = flags.maasKeyFile;
  // The source is one line of text: a path that is not (or is very long) is named by its flag alone.
  if (file !== undefined) return file.length <= 200 && !/\p{Cc}/u.test(file) ? `--maas-key-file ${file}` : '--maas-key-file';
  return flags.maasKey !== undefined ? '--maas-key' : 'MAAS_API_KEY';
}

async function maasDriver(flags: NodeFlags, env: ReturnType<typeof readEnv>): Promise<{ driver: MaasDriver; close(): void } | null> {
  const endpoint = flags.maas ?? env.MAAS_ENDPOINT;
  if (flags.maasKeyFile !== undefined && flags.maasKey !== undefined) throw new CliError('--maas-key and --maas-key-file: choose one (the file keeps the key out of ps)', 2);
  if (!endpoint) {
    if (flags.maasKeyFile !== undefined) throw new CliError('--maas-key-file applies with --maas (or MAAS_ENDPOINT)', 2);
    return null;
  }
  const apiKey = flags.maasKeyFile !== undefined ? await readMaasKeyFile(flags.maasKeyFile) : flags.maasKey ?? env.MAAS_API_KEY;
  if (!apiKey) throw new CliError('--maas: give the MAAS API key with --maas-key-file, --maas-key or MAAS_API_KEY', 2);
  try {
    const client = createMaasClient({ endpoint, apiKey, keySource: maasKeySource(flags) });
    return { driver: createMaasDriver(client), close: () => client.close() };
  } catch (err) {
    throw new CliError(`--maas ${endpoint}: ${errorMessage(err)}`, 2);
  }
}

// The built-in backends and any plugins, through one registry (src/cli/provisioners.ts): the
// fixture (in process, or the shared one at --fixture-url), Ironic, and --plugin/--plugin-dir.
async function backend(flags: NodeFlags, env: ReturnType<typeof readEnv>, log: Logger): Promise<SelectedProvisioner> {
  if (flags.fixtureUrl && flags.ironic) throw new CliError('--fixture-url and --ironic: choose one backend', 2);
  const fixtureUrl = flags.fixtureUrl;
  // A URL that can never be one is the operator's to fix (exit 2), said before anything starts.
  if (fixtureUrl !== undefined && !/^https?:$/.test(urlProtocol(fixtureUrl))) {
    throw new CliError(`--fixture-url ${redactUrl(fixtureUrl)}: expected an http:// or https:// URL (metalfleet fixture-server prints it)`, 2);
  }
  const fixture = fixtureUrl ? { ...fixtureBuiltin(flags.fixtureLatency), async create() {
    try {
      return await createRemoteFixtureProvisioner({ url: fixtureUrl });
    } catch (err) {
      throw new CliError(`--fixture-url ${fixtureUrl}: ${errorMessage(err)}`);
    }
  } } : fixtureBuiltin(flags.fixtureLatency);
  return selectProvisioner({
    flags,
    builtins: [fixture, ironicBuiltin({ urls: flags.ironic ?? [], ...(flags.ironicDriver ? { driver: flags.ironicDriver } : {}), imageCheck: false }, env)],
    defaultName: flags.ironic ? 'ironic' : 'fixture',
    ...(env.METALFLEET_PLUGIN_DIR ? { pluginDir: env.METALFLEET_PLUGIN_DIR } : {}),
    cwd: process.cwd(),
    log,
    warn: (line) => log.warn({}, line),
  });
}

/** The dashboard's command settings: off unless --ui-commands, which needs the token file. */
async function uiCommandsFrom(flags: NodeFlags): Promise<Pick<NodeConfig, 'uiCommands'>> {
  if (!flags.uiCommands) {
    if (flags.uiTokenFile || flags.uiSigningKey) throw new CliError('--ui-token-file and --ui-signing-key apply with --ui-commands', 2);
    return {};
  }
  if (flags.healthPort === undefined) throw new CliError('--ui-commands: the dashboard is served on the health port; add --health-port', 2);
  if (!flags.uiTokenFile) throw new CliError('--ui-commands needs --ui-token-file: a node prints no token (its logs are not a place for one)', 2);
  const token = await readUiToken(flags.uiTokenFile);
  const signingKey = flags.uiSigningKey ? await signingKeyFrom({ signingKey: flags.uiSigningKey }, {}).catch((e: unknown) => {
    throw e instanceof CliError ? new CliError(e.message.replace(/^--signing-key/, '--ui-signing-key'), 2) : e;
  }) : undefined;
  return { uiCommands: { token, ...(signingKey ? { signingKey } : {}) } };
}

function urlProtocol(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
}
