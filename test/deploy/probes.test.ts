// The probes and scrape annotations in deploy/ against what the servers serve: a node started
// with the manifest's health flags (on the embedded memory substrate) answers every probe path
// and the scrape path on the address the kubelet and Prometheus reach, and /readyz follows the
// node's connection; the webhook serves its probe path.
import { networkInterfaces } from 'node:os';
import test from 'ava';
import { Command } from 'commander';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { webhookRoutes } from '../../src/adapters/kube/webhook/routes.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { registerAll } from '../../src/cli/commands/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { BusStatus } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { waitUntil } from '../support/wait.ts';
import { loadKustomization } from './kustomize.ts';
import type { KubeObject } from './kustomize.ts';

interface HttpGet { path: string; port: number | string; scheme?: string }
interface Probe { httpGet?: HttpGet }
interface Container { name: string; args?: string[]; ports?: { name?: string; containerPort: number }[]; livenessProbe?: Probe; readinessProbe?: Probe; startupProbe?: Probe }
interface Template { metadata: { annotations?: Record<string, string> }; spec: { containers: Container[] } }

const ALL_INTERFACES = new Set(['0.0.0.0', '::']);

async function workload(kind: string, name: string): Promise<Template> {
  const { objects } = await loadKustomization();
  const found = objects.find(({ object }: { object: KubeObject }) => object.kind === kind && object.metadata?.name === name);
  const template = (found?.object.spec as { template?: Template } | undefined)?.template;
  if (!template) throw new Error(`deploy/ has no ${kind} ${name} with a pod template`);
  return template;
}

function flag(args: readonly string[] | undefined, name: string): string | undefined {
  for (const [i, arg] of (args ?? []).entries()) {
    if (arg === name) return args?.[i + 1];
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  }
  return undefined;
}

/** What the command does with a flag the manifest leaves out: its default. */
async function flagDefault(command: string, name: string): Promise<unknown> {
  const program = new Command('metalfleet');
  await registerAll(program);
  return program.commands.find((c) => c.name() === command)?.options.find((o) => o.long === name)?.defaultValue;
}

function portNumber(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

const probes = (c: Container): [string, HttpGet][] => (['startupProbe', 'livenessProbe', 'readinessProbe'] as const).flatMap((k) => (c[k]?.httpGet ? [[k, c[k].httpGet] as [string, HttpGet]] : []));

async function controller(): Promise<{ template: Template; container: Container }> {
  const template = await workload('StatefulSet', 'metalfleet-controller');
  const container = template.spec.containers.find((c) => c.name === 'controller');
  if (!container) throw new Error('no controller container');
  return { template, container };
}

test('probes - the controller\'s probes and scrape annotations point at its health port, bound on every interface', async (t) => {
  const { template, container } = await controller();
  const port = Number(flag(container.args, '--health-port'));
  t.true(port > 0);
  const bind = flag(container.args, '--health-bind') ?? String(await flagDefault('node', '--health-bind'));
  // The kubelet and Prometheus connect to the pod's IP: a loopback-only server fails every probe.
  t.true(ALL_INTERFACES.has(bind), `--health-bind ${bind}`);
  const found = probes(container);
  t.deepEqual(found.map(([k]) => k), ['startupProbe', 'livenessProbe', 'readinessProbe']);
  for (const [kind, get] of found) {
    t.is(portNumber(container, get.port), port, `${kind} port`);
    t.is(get.scheme ?? 'HTTP', 'HTTP', `${kind}: the health port is plain HTTP`);
  }
  const annotations = template.metadata.annotations ?? {};
  t.is(annotations['prometheus.io/scrape'], 'true');
  t.is(Number(annotations['prometheus.io/port']), port);
  t.is(annotations['prometheus.io/path'], '/metrics');
});

test('probes - a node started with the manifest\'s health flags serves every probe and the scrape path on every interface, and /readyz follows its connection', async (t) => {
  const { template, container } = await controller();
  const bind = flag(container.args, '--health-bind') ?? String(await flagDefault('node', '--health-bind'));
  const substrate = memorySubstrate();
  // The node's view of its bus connection, driven by the test as NATS would drive it.
  const statusListeners: ((status: BusStatus) => void)[] = [];
  const onStatus = substrate.transport.onStatus.bind(substrate.transport);
  substrate.transport.onStatus = (listener) => {
    statusListeners.push(listener);
    return onStatus(listener);
  };
  const store = await openLocalStore(substrate.transport);
  const node = await startLocalNode({
    name: 'probes-node', shardCount: 4, healthPort: 0, healthBind: bind,
    machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 1, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: store.resources }, { provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }) }, {}, substrate);
  t.teardown(() => node.stop());
  const url = new URL(node.health?.url ?? 'http://missing');
  t.is(url.hostname, bind, 'listening on the manifest\'s address');
  // Reached through an address other than loopback, as from the pod network, where there is one.
  const external = Object.values(networkInterfaces()).flat().find((a) => a?.family === 'IPv4' && !a.internal)?.address;
  const bases = [`http://127.0.0.1:${url.port}`, ...(external ? [`http://${external}:${url.port}`] : [])];
  t.log(`health server reached at ${bases.join(', ')}`);
  const get = async (base: string, path: string): Promise<{ status: number; type: string; body: string }> => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
  };
  const readyz = probes(container).find(([k]) => k === 'readinessProbe')?.[1].path ?? '?';
  await waitUntil(async () => (await get(bases[0] ?? '', readyz)).status === 200, 20_000, `${readyz} answers 200`);
  for (const base of bases) {
    for (const [kind, probe] of probes(container)) t.is((await get(base, probe.path)).status, 200, `${kind} ${base}${probe.path}`);
    const metrics = await get(base, template.metadata.annotations?.['prometheus.io/path'] ?? '?');
    t.is(metrics.status, 200);
    t.regex(metrics.type, /^text\/plain; version=0\.0\.4/);
    t.regex(metrics.body, /^# TYPE metalfleet_\w+ /m);
  }
  t.true(statusListeners.length > 0, 'the node follows its connection');
  // NATS gone: not ready (taken out of the Service), still alive (not restarted).
  for (const listener of statusListeners) listener('disconnected');
  const down = await get(bases[0] ?? '', readyz);
  t.is(down.status, 503);
  t.regex(down.body, /^not ready: .*disconnected/);
  t.is((await get(bases[0] ?? '', '/healthz')).status, 200);
  for (const listener of statusListeners) listener('connected');
  t.is((await get(bases[0] ?? '', readyz)).status, 200);
});

test('probes - the webhook\'s probes ask its HTTPS port for a path it serves to GET', async (t) => {
  const template = await workload('Deployment', 'metalfleet-webhook');
  const [container] = template.spec.containers;
  if (!container) return t.fail('no webhook container');
  const port = Number(flag(container.args, '--port'));
  t.true(ALL_INTERFACES.has(flag(container.args, '--host') ?? String(await flagDefault('webhook', '--host'))), 'listening where the kubelet reaches it');
  const routes = webhookRoutes(silentLogger);
  const found = probes(container);
  t.true(found.length >= 2);
  for (const [kind, get] of found) {
    t.is(get.scheme, 'HTTPS', kind);
    t.is(portNumber(container, get.port), port, `${kind} port`);
    const route = routes.get(get.path);
    t.true(route?.methods.includes('GET'), `${kind}: GET ${get.path} is served`);
  }
  // The webhook serves no /metrics: nothing to scrape, so no annotation that says otherwise.
  t.false(routes.has('/metrics'));
  t.is(template.metadata.annotations?.['prometheus.io/scrape'], undefined);
});
