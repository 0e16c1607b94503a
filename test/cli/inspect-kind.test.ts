// `metalfleet inspect` takes the kind as `host` does (KIND/NS/NAME, --kind; none: BareMetalHost)
// and asks only that kind: a MaasMachine no longer shadows a BareMetalHost of the same name.
// Against the embedded node driving both kinds; the refusals through the real binary.
import test from 'ava';
import { inspectView, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { CliError } from '../../src/cli/cli-error.ts';
import { startServedMaasNode, maasMachineObject } from '../support/maas-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { metalfleet } from './run.ts';

/** `inspect --json`: the answering node and its reply. */
interface Shown { node: string; value: { host: { key: string; kind: string; backend: string } } }

test('inspect - a BareMetalHost and a MaasMachine of the same name are each shown by their kind', async (t) => {
  const served = await startServedMaasNode('cli');
  const { it, client, source } = served;
  const json: ViewOptions = { format: 'json', width: 200, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  const shown = async (kind?: string): Promise<Shown['value']> => (JSON.parse((await inspectView(client, { host: 'capi/twin', kind, shardCount: 8 }, json)).stdout) as Shown).value;
  try {
    t.true((await it.apply([secret('bmc', 'capi'), bmh('twin', { namespace: 'capi' }), maasMachineObject('twin')])).ok);
    await waitUntil(async () => {
      const rows = (await source.hosts({})).filter((r) => r.key === 'capi/twin');
      return rows.length === 2;
    }, 10_000, 'both objects driven');

    t.like(await shown('MaasMachine'), { host: { key: 'capi/twin', kind: 'MaasMachine', backend: 'maas' } });
    t.like(await shown('BareMetalHost'), { host: { key: 'capi/twin', kind: 'BareMetalHost' } });
    // No kind is a BareMetalHost, as for commands, though the MaasMachine is found first by name.
    t.like(await shown(), { host: { key: 'capi/twin', kind: 'BareMetalHost' } });

    // A kind inspect does not show is refused naming it and the ones it does.
    const cluster = await t.throwsAsync(inspectView(client, { host: 'capi/twin', kind: 'MaasCluster', shardCount: 8 }, json));
    t.true(cluster instanceof CliError);
    t.is(cluster.message, 'inspect: kind "MaasCluster" is not one inspect shows: BareMetalHost, MaasMachine (MaasClusters: see clusters)');
    // Only the kind asked for is looked up: a MaasMachine of another name is not found as a BareMetalHost, nor the reverse.
    t.true((await it.apply([maasMachineObject('solo')])).ok);
    await waitUntil(async () => (await source.hosts({})).some((r) => r.key === 'capi/solo'), 10_000, 'the lone machine driven');
    const asHost = await t.throwsAsync(inspectView(client, { host: 'capi/solo', shardCount: 8 }, json));
    t.regex(asHost.message, /^unknown host capi\/solo: embedded \(owner of shard \d+\) knows no BareMetalHost of that name/);
    t.like((JSON.parse((await inspectView(client, { host: 'capi/solo', kind: 'MaasMachine', shardCount: 8 }, json)).stdout) as Shown).value, { host: { key: 'capi/solo', kind: 'MaasMachine' } });
  } finally {
    await served.stop();
  }
});

test('inspect - an unknown kind is refused before anything is asked, naming it and the kinds', async (t) => {
  const [flag, arg, both] = await Promise.all([
    metalfleet('inspect', '--kind', 'Pod', 'lab/m-0', '--nats', 'nats://127.0.0.1:1'),
    metalfleet('inspect', 'pod/lab/m-0', '--nats', 'nats://127.0.0.1:1'),
    metalfleet('inspect', 'bmh/lab/m-0', '--kind', 'MaasMachine', '--nats', 'nats://127.0.0.1:1'),
  ]);
  t.is(flag.code, 2);
  t.regex(flag.stderr, /--kind: unknown kind "Pod": the kinds are BareMetalHost \(bmh, bmhost\), MaasMachine, MaasCluster/);
  t.is(arg.code, 2);
  t.regex(arg.stderr, /host "pod\/lab\/m-0": unknown kind "pod": the kinds are BareMetalHost \(bmh, bmhost\), MaasMachine, MaasCluster/);
  t.is(both.code, 2);
  t.regex(both.stderr, /host "bmh\/lab\/m-0" is a BareMetalHost, but --kind says MaasMachine: give one/);
});
