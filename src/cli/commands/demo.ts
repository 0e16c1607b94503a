import { noObjectsIn } from '../../api/manifest-file.ts';
import { manifestInputs, readManifestInput } from './manifest-inputs.ts';
import { access, constants, lstat, readlink, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { IRONIC_LABEL } from '../backends.ts';
import { fixtureBuiltin, ironicBuiltin, maasBuiltin } from '../builtin-provisioners.ts';
import type { ProvisionerFlags } from '../provisioners.ts';
import { addProvisionerFlags, builtinFailure, selectProvisioner } from '../provisioners.ts';
import { formatApplyIssue } from '../../adapters/store/validate.ts';
import type { SourceDocument } from '../../adapters/store/validate.ts';
import { loadKvSnapshot, persistKv, type KvPersist } from '../../adapters/store/kv-snapshot.ts';
import { openLocalStore, type LocalStore } from '../../adapters/store/local-store.ts';
import type { NatsApplyResult } from '../../adapters/store/nats-store.ts';
import { MAAS_VALIDATORS } from '../../adapters/store/object-apply.ts';
import { kindBuckets } from '../../machines/kinds.ts';
import { errorMessage } from '../../api/index.ts';
import { readManifests } from '../../api/manifest.ts';
import { issueInDocuments } from '../../api/manifest-where.ts';
import { memorySubstrate } from '../../node/index.ts';
import { CliError } from '../cli-error.ts';
import { intFlag, msFlag, nodeConfig, portFlag, readEnv } from '../config.ts';
import { generateFleet } from '../demo/generate.ts';
import { generateMaasCluster } from '../demo/maas-fleet.ts';
import { datacenterFleet } from '../demo/datacenter-fleet.ts';
import { startPrivateIronic, stopOnSignal } from '../demo/private-ironic.ts';
import { datacenterIronic } from '../demo/datacenter-flags.ts';
import type { PrivateIronic } from '../demo/private-ironic.ts';
import { maasSetup } from '../maas.ts';
import { runDemo, type DemoSummary } from '../demo/run.ts';
import { createLogger, logLevelFlag } from '../logger.ts';
import { untilSignalled } from '../signals.ts';
import type { Transport } from '../../ports/index.ts';
import { uiBanner } from './ui.ts';
import { collectMaxCalls, MAX_CALLS_HELP, parseMaxCalls } from '../max-calls.ts';

interface DemoFlags extends ProvisionerFlags {
  hosts: number;
  file?: string[];
  json?: boolean;
  limit?: number;
  // No commander default: its '(default: [])' sat beside the help's own default.
  maxCalls?: string[];
  latency: number;
  timeout: number;
  persist?: string;
  logLevel?: string;
  progress?: boolean;
  // A list of URLs, or true for a bare --ironic: a private Ironic.
  ironic?: string[] | true;
  datacenter?: number;
  ironicDriver?: string;
  ironicPollMs?: number;
  imageCheck?: boolean;
  maas?: string | boolean;
  maasKey?: string;
  maasSkipSwap?: boolean;
  maasControlPlane: number;
  maasWorkers: number;
  ui?: boolean;
  uiPort: number;
  uiBind: string;
  uiCommands?: boolean;
}

export function register(program: Command): void {
  const demo = program
    .command('demo')
    .description(descriptionOf('demo'))
    .option('--hosts <n>', 'generate this many hosts (includes the demo-* scenario hosts)', intFlag('--hosts', 1), 100)
    .option('-f, --file <path...>', 'load BareMetalHosts and their Secrets from YAML manifests instead')
    .option('--limit <n>', 'capacity slots per backend pool (default: PROVISIONING_LIMIT or 20; 0 = unlimited)', intFlag('--limit', 0))
    .option('--latency <ms>', 'fixture latency of every backend call', msFlag('--latency', 0), 100)
    .option('--max-calls <backend=n>', MAX_CALLS_HELP, collectMaxCalls)
    .option('--timeout <seconds>', 'give up after this long', intFlag('--timeout', 1), 120)
    .option('--persist <file>', 'keep host status in this file so a rerun resumes where it stopped')
    .option('--ironic [url...]', 'drive a real Ironic (or several, hosts spread by the metalfleet.io/ironic label) instead of the fixture; without a URL, start a private one')
    .option('--datacenter <n>', 'start a virtual datacenter of N servers with Redfish BMCs and make them the hosts, driven with its real redfish drivers by a private Ironic (implies --ironic), or by yours with --ironic URL', intFlag('--datacenter', 1))
    .option('--ironic-driver <type>', 'create Ironic nodes as this hardware type: fake-hardware, for an Ironic without BMCs (default: IRONIC_DRIVER_OVERRIDE)')
    .option('--ironic-poll-ms <ms>', 'how often to look at an Ironic operation in progress', msFlag('--ironic-poll-ms', 10))
    .option('--image-check', 'check image URLs answer before deploying')
    .option('--maas <url>', 'a real MAAS for the MaasMachines (default: MAAS_ENDPOINT, else the simulator on loopback)')
    .option('--maas-key <key>', 'its API key consumer:token:secret (default: MAAS_API_KEY, better for a real key: a command line shows in ps)')
    .option('--maas-skip-swap', 'do not turn swap off before deploying: needed with a non-admin key (default: MAAS_SKIP_SWAP)')
    .option('--no-maas', 'no MaasMachines')
    .option('--maas-control-plane <n>', 'control-plane MaasMachines of the demo cluster', intFlag('--maas-control-plane', 0), 3)
    .option('--maas-workers <n>', 'worker MaasMachines of the demo cluster', intFlag('--maas-workers', 0), 4)
    .option('--ui', 'serve the live dashboard beside the demo (see `metalfleet ui`); it stays up after the demo until Ctrl-C')
    .option('--ui-port <port>', 'HTTP port of the dashboard with --ui (0 = any free port)', portFlag('--ui-port'), 8090)
    .option('--ui-bind <address>', 'address of the dashboard with --ui', '127.0.0.1')
    .option('--ui-commands', 'with --ui: allow host commands from the page, with the token printed at start')
    .option('--json', 'print a JSON summary at the end')
    .option('--no-progress', 'no progress output')
    .option('--log-level <level>', 'log level on stderr', logLevelFlag);
  // --maas and --no-maas set one value, the last given winning: both given is a contradiction.
  const maasWords = new Set<string>();
  demo.on('option:maas', () => maasWords.add('--maas')).on('option:no-maas', () => maasWords.add('--no-maas'));
  addProvisionerFlags(demo)
    .addHelpText('after', '\nExamples:\n  metalfleet demo\n  metalfleet demo --hosts 10000 --latency 0 --limit 0 --json\n  metalfleet demo -f hosts.yaml --persist status.json\n  metalfleet demo --ironic http://127.0.0.1:6385 --ironic-driver fake-hardware --hosts 20\n  metalfleet demo --ironic --datacenter 5\n  metalfleet demo --ironic http://127.0.0.1:6385 --datacenter 3\n  metalfleet demo --ironic --hosts 20\n  metalfleet demo -f lab-hosts.yaml --plugin ./examples/provisioner-plugin --provisioner lab\n')
    .action(async (flags: DemoFlags) => {
      refuseContradictions(demo, maasWords);
      const env = readEnv();
      const external = datacenterIronic({ ...flags, hostsGiven: demo.getOptionValueSource('hosts') === 'cli' });
      if (flags.file) {
        // The hosts are the files' then, and no demo MAAS cluster is made: these counts were
        // silently ignored (demo -f lab.yaml --hosts 50 ran the file's 3 hosts and said ok).
        const ignored = ['hosts', 'maasControlPlane', 'maasWorkers'].filter((name) => demo.getOptionValueSource(name) === 'cli');
        const flagOf = (name: string): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
        if (ignored.length > 0) throw new CliError(`-f cannot be used with ${ignored.map(flagOf).join(', ')}: the hosts are the files' (and -f makes no demo MAAS cluster)`, 2);
      }
      if (flags.persist !== undefined) flags.persist = await checkPersistPath(flags.persist);
      const privateWanted = flags.ironic === true || flags.datacenter !== undefined;
      const backend = privateWanted ? await startPrivateIronic({ servers: flags.datacenter ?? null, ...(external !== null ? { externalIronic: external } : {}) }) : null;
      const signals = demoSignals(backend, flags.persist !== undefined);
      try {
        await runDemoCommand(flags, env, backend, signals);
      } catch (error) {
        // A failed command exits soon after (cli/main.ts): a save then in progress would leave
        // its temporary file behind. What the run did up to the failure is kept.
        await signals.persist?.close().catch(() => undefined);
        throw error;
      } finally {
        signals.off();
        await backend?.stop();
      }
    });
}

/**
 * Flags the demo would silently ignore: MAAS settings beside --no-maas (the last of --maas and
 * --no-maas won, without a word), and the dashboard's settings without --ui.
 */
function refuseContradictions(demo: Command, maasWords: ReadonlySet<string>): void {
  const given = (name: string): boolean => demo.getOptionValueSource(name) === 'cli';
  if (maasWords.has('--no-maas')) {
    const maas = [...(maasWords.has('--maas') ? ['--maas'] : []), ...MAAS_FLAGS.filter(([name]) => given(name)).map(([, flag]) => flag)];
    if (maas.length > 0) throw new CliError(`--no-maas cannot be used with ${maas.join(', ')}: give one`, 2);
  }
  if (demo.getOptionValue('ui') !== true) {
    const ui = UI_FLAGS.filter(([name]) => given(name)).map(([, flag]) => flag);
    if (ui.length === 1) throw new CliError(`${ui.join(', ')} only applies with --ui: add --ui, or leave it out`, 2);
    if (ui.length > 1) throw new CliError(`${ui.join(', ')} only apply with --ui: add --ui, or leave them out`, 2);
  }
}

const MAAS_FLAGS = [['maasKey', '--maas-key'], ['maasSkipSwap', '--maas-skip-swap'], ['maasControlPlane', '--maas-control-plane'], ['maasWorkers', '--maas-workers']] as const;
const UI_FLAGS = [['uiPort', '--ui-port'], ['uiBind', '--ui-bind'], ['uiCommands', '--ui-commands']] as const;

async function runDemoCommand(flags: DemoFlags, env: ReturnType<typeof readEnv>, backend: PrivateIronic | null, signals: DemoSignals): Promise<void> {
  const mode = flags.progress === false || flags.json ? 'quiet' : process.stdout.isTTY ? 'tty' : 'lines';
  // On a terminal the panel shows recent problems; log lines would tear it apart.
  const log = createLogger(flags.logLevel ?? env.METALFLEET_LOG_LEVEL ?? (mode === 'tty' ? 'silent' : 'warn'), { node: 'demo' });
  const ironicUrls = backend ? [backend.url] : Array.isArray(flags.ironic) ? flags.ironic : [];
  const dc = backend?.datacenter ?? null;
  // The datacenter's servers have BMCs, so the real redfish driver runs, never an override. The
  // generated fleet's BMCs do not exist: a private Ironic drives them with fake-hardware.
  const driver = dc ? undefined : flags.ironicDriver ?? env.IRONIC_DRIVER_OVERRIDE ?? (backend && !flags.file ? 'fake-hardware' : undefined);
  if (backend) {
    const how = dc ? 'nodes on the redfish driver' : driver ? `nodes on ${driver}: the generated hosts have no BMCs (--datacenter N gives them real ones)` : 'nodes on their BMCs\' drivers';
    // With --json, stdout holds only the summary.
    process[flags.json ? 'stderr' : 'stdout'].write(`${backend.banner}\n${how}\n`);
  }
  const maasWanted = flags.maas !== false && !flags.file && flags.maasControlPlane + flags.maasWorkers > 0;
  // Set by the maas built-in's factory, which the registry runs below when MAAS is wanted.
  const setup: { maas: Awaited<ReturnType<typeof maasSetup>> | null } = { maas: null };
  const { provisioner, registry } = await selectProvisioner({
    flags,
    builtins: [
      fixtureBuiltin(flags.latency),
      ironicBuiltin({ urls: ironicUrls, driver, pollMs: flags.ironicPollMs ?? 1000, imageCheck: flags.imageCheck ?? false, ...(backend?.deploy ? { deploy: backend.deploy } : {}) }, env),
      maasBuiltin(async () => {
        const maas = await maasSetup({ ...(typeof flags.maas === 'string' ? { url: flags.maas } : env.MAAS_ENDPOINT ? { url: env.MAAS_ENDPOINT } : {}), ...(flags.maasKey ?? env.MAAS_API_KEY ? { key: flags.maasKey ?? env.MAAS_API_KEY } : {}), keySource: flags.maasKey !== undefined ? '--maas-key' : 'MAAS_API_KEY' });
        setup.maas = maas;
        return maas.driver;
      }),
    ],
    defaultName: ironicUrls.length > 0 ? 'ironic' : 'fixture',
    ...(env.METALFLEET_PLUGIN_DIR ? { pluginDir: env.METALFLEET_PLUGIN_DIR } : {}),
    cwd: process.cwd(),
    log,
    warn: (line) => process.stderr.write(`${line}\n`),
  });
  // The embedded default is a one-node cluster on a private in-memory bus and KV: the same
  // node, store and broker a NATS cluster runs. Secrets stay in this process, never in KV.
  const substrate = memorySubstrate();
  // --persist keeps every bucket a kind declares (machines/kinds.ts).
  const hostBuckets = await Promise.all(kindBuckets().map((name) => substrate.transport.kv(name)));
  if (flags.persist) await loadKvSnapshot(flags.persist, hostBuckets).catch((err: unknown) => {
    throw new CliError(errorMessage(err), 1);
  });
  const inputs = flags.file ? await readAll(flags.file) : [];
  // The demo-* failure scenarios are the fixture's; a real Ironic would simply succeed.
  const generated = dc ? datacenterFleet(dc) : generateFleet(flags.hosts, { scenarios: ironicUrls.length === 0, routeLabel: ironicUrls.length > 1 ? { key: IRONIC_LABEL, values: ironicUrls } : undefined });
  const fileDocs = inputs.flatMap(([text, file]) => readManifests(text, file));
  const docs: SourceDocument[] = flags.file
    ? fileDocs
    : generated.map((object, index) => ({ file: '(generated)', index, object }));
  // An empty file (or only comments) is the wrong file, not an empty fleet: the demo ran nothing
  // and said ok. kubectl apply refuses it too ("no objects passed to apply").
  if (flags.file && docs.length === 0) throw new CliError(`${noObjectsIn(flags.file)}; nothing to run`, 1);
  const store = await openLocalStore(substrate.transport, {
    log, pluginBmcSchemes: registry.bmcSchemes(),
    maas: { validators: MAAS_VALIDATORS },
  });
  // A generated fleet (always valid) goes in slices: validating and writing 100,000 hosts in
  // one apply holds every intermediate of them at once (over a default Node heap). Files keep
  // one all-or-nothing apply.
  const applied = flags.file ? await store.applyLocal(docs) : await applyInSlices(store, docs);
  // Named at the field's line and column, as validate names them.
  if (!applied.ok) throw new CliError(`invalid input, the demo did not start:\n${applied.issues.map((i) => issueInDocuments(i, fileDocs) ?? formatApplyIssue(i)).join('\n')}`, 1);
  for (const w of applied.warnings) process.stderr.write(`warning: ${w}\n`);
  const persist = flags.persist ? await persistKv(flags.persist, hostBuckets, { onError: (err) => log.error({ err: String(err) }, 'saving the store file failed') }) : null;
  signals.persist = persist;
  const limit = flags.limit ?? env.PROVISIONING_LIMIT;
  if (maasWanted) {
    await registry.createMaasDriver('maas', { options: {}, log }).catch((err: unknown) => {
      throw builtinFailure(err) ?? err;
    });
  }
  const maas = setup.maas;
  if (maas) {
    const applied = await store.applyObjects(generateMaasCluster({ controlPlane: flags.maasControlPlane, workers: flags.maasWorkers }), '(demo MAAS cluster)');
    if (!applied.ok) throw new CliError(`demo MAAS objects invalid: ${applied.issues.map(formatApplyIssue).join('; ')}`);
  }
  const nodeCfg = nodeConfig({ name: 'demo', env, calls: parseMaxCalls(flags.maxCalls ?? []), defaultLimit: limit === 0 ? Number.POSITIVE_INFINITY : limit, machine: { pluginBmcSchemes: registry.bmcSchemes() } });
  const ui = flags.ui ? await startDemoUi(substrate.transport, nodeCfg.shardCount, flags) : null;
  const summary = await runDemo({
    // While the dashboard holds, its own wait takes the signal; the demo's handler is back for
    // the final save after it, and the private Ironic stops after that.
    ...(ui ? { holdOpen: (done: DemoSummary) => (printSummary(done, flags), signals.off(), ui.holdOpen().finally(() => signals.on())) } : {}),
    ...(maas && store.objects ? { maas: { driver: maas.driver, config: { skipSwap: flags.maasSkipSwap ?? env.MAAS_SKIP_SWAP, ...(maas.simulated ? { deployingPollMs: 200, steadyPollMs: 2_000, powerOnRequeueMs: 1_000 } : {}) } } } : {}),
    substrate, store: store.resources, secrets: store.secrets, provisioner, log, mode, out: process.stdout, timeoutMs: flags.timeout * 1000, demoScenarios: ironicUrls.length === 0,
    node: { ...nodeCfg, cluster: { drainTimeoutMs: 2_000 } },
  });
  await ui?.close();
  await persist?.close();
  await store.close();
  await substrate.transport.close();
  await maas?.stop();
  // With --ui it was printed when the demo was done, before the page's hold.
  if (!ui) printSummary(summary, flags);
  if (!summary.ok) process.exitCode = 1;
}

function printSummary(summary: DemoSummary, flags: Pick<DemoFlags, 'json'>): void {
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, capacity: summary.capacity?.totals ?? null })}\n`);
    return;
  }
  const rate = summary.hostsPerSecond >= 0.1 ? `${summary.hostsPerSecond.toFixed(summary.hostsPerSecond < 10 ? 1 : 0)} hosts/s` : `${(summary.hostsPerSecond * 60).toFixed(1)} hosts/min`;
  process.stdout.write(`${summary.reached}/${summary.hosts} hosts reached their target in ${summary.seconds.toFixed(1)}s (${rate})\n`);
  if (summary.maas) process.stdout.write(`MAAS: ${summary.maas.ready}/${summary.maas.machines} MaasMachines ready; ${summary.maas.dnsName ?? '(no DNS name)'} -> ${summary.maas.dnsIps.join(' ') || '(none)'} (control plane: ${summary.maas.controlPlaneIps.join(' ')})\n`);
  for (const n of summary.notReached.slice(0, 20)) process.stdout.write(`  not reached: ${n.host}: expected ${n.expected}, is ${n.actual}\n`);
}

interface DemoSignals {
  /** The --persist saver, once there is one: a signal abandons its save in progress. */
  persist: KvPersist | null;
  on(): void;
  off(): void;
}

// SIGINT/SIGTERM stop the demo at once, as they always did, after what must not be left half
// done: a --persist save in progress is abandoned and its temporary file removed (a Ctrl-C during
// a save left FILE.<pid>.<n>.tmp behind), then the private Ironic stops. Without either, the
// default handling stays.
function demoSignals(backend: PrivateIronic | null, persisting: boolean): DemoSignals {
  let off: (() => void) | null = null;
  const signals: DemoSignals = {
    persist: null,
    on() {
      if (off !== null || (!backend && !persisting)) return;
      const stop = async (): Promise<void> => {
        if (await signals.persist?.abort()) process.stderr.write('stopped during a save of the --persist file: that save was abandoned, and the file is as the last complete save left it\n');
        await backend?.stop();
      };
      off = stopOnSignal(stop, backend ? undefined : null);
    },
    off() {
      off?.();
      off = null;
    },
  };
  signals.on();
  return signals;
}

// The dashboard on the demo's own bus: the page sees the embedded node as `metalfleet ui` sees a
// cluster. Its address goes to stderr, as the progress and the --json summary own stdout.
async function startDemoUi(transport: Transport, shardCount: number, flags: DemoFlags): Promise<{ holdOpen: () => Promise<void>; close: () => Promise<void> }> {
  const { commandGate, startUiServer } = await import('../../ui/index.ts');
  const gate = commandGate({ enabled: flags.uiCommands === true });
  const server = await startUiServer({ transport, gate, shardCount, port: flags.uiPort, bind: flags.uiBind }).catch((err: unknown) => {
    throw new CliError(`--ui: cannot listen on ${flags.uiBind}:${flags.uiPort}: ${errorMessage(err)}`);
  });
  process.stderr.write(`${uiBanner(server.url, gate.token)}\n`);
  return {
    holdOpen: async () => {
      process.stderr.write(`demo done; the dashboard stays at ${server.url} until Ctrl-C\n`);
      await untilSignalled();
    },
    close: () => server.close(),
  };
}

async function applyInSlices(store: LocalStore, docs: readonly SourceDocument[]): Promise<NatsApplyResult> {
  const SLICE = 2_000;
  let last: NatsApplyResult | null = null;
  const warnings: string[] = [];
  for (let i = 0; i < docs.length; i += SLICE) {
    last = await store.applyLocal(docs.slice(i, i + SLICE));
    if (!last.ok) return last;
    warnings.push(...last.warnings);
  }
  return last ? { ...last, warnings } : store.applyLocal([]);
}

// A --persist file that can never be written is said before the demo runs: the first save used
// to fail only after every host had run, on the temporary file's name (ENOENT ... st.json.1234.1.tmp),
// with nothing saved. A missing file is fine (the first run creates it).
// Returns the path to save to: a symlink's target, since the save renames a new file over the
// path, which over the link itself replaced the link and left the file it names as it was.
async function checkPersistPath(given: string): Promise<string> {
  const refuse = (why: string): never => {
    throw new CliError(`--persist ${given}: ${why}`, 2);
  };
  // An empty one ("--persist $UNSET") was taken as no --persist: the run kept nothing.
  if (given.trim() === '') throw new CliError('--persist: expected a file path, got ""', 2);
  const path = await linkTarget(given);
  if ((await stat(path).catch(() => null))?.isDirectory()) refuse('is a folder; give a file in it');
  const folder = dirname(path);
  const info = await stat(folder).catch((err: unknown) => (err as NodeJS.ErrnoException).code ?? 'unknown error');
  if (info === 'ENOENT') refuse(`the folder ${folder} does not exist; create it or give another path`);
  if (info === 'ENOTDIR' || (typeof info !== 'string' && !info.isDirectory())) refuse(`${folder} is not a folder`);
  if (typeof info === 'string') refuse(`cannot look at the folder ${folder}: ${info}`);
  await access(folder, constants.W_OK).catch(() => refuse(`cannot write in the folder ${folder} (permission denied)`));
  return path;
}

/** The file a chain of symlinks ends at (it may not exist yet: the first run creates it); else the path itself. */
async function linkTarget(path: string): Promise<string> {
  let current = path;
  // A loop of links ends here rather than spinning; the save then fails on it, naming it.
  for (let hops = 0; hops < 40; hops += 1) {
    const info = await lstat(current).catch(() => null);
    if (!info?.isSymbolicLink()) return current;
    current = resolve(dirname(current), await readlink(current));
  }
  return current;
}

async function readAll(files: string[]): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const { file, error } of await manifestInputs(files)) {
    if (error !== undefined) throw new CliError(`${file}: ${error}`, 1);
    // Refused by its size before it is read (src/api/limits.ts), as validate and apply do.
    const text = await readManifestInput(file);
    if (!text.ok) throw new CliError(`${file}: ${text.reason}`, 1);
    out.push([text.text, file]);
  }
  return out;
}
