// Hosts driven through a plugin: the example loaded by path and by package name runs a host to
// provisioned on an embedded node, beside the built-in fixture, each host on the backend its
// label names.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { startLocalNode } from '../support/local-node.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { PROVISIONER_LABEL, selectProvisioner } from '../../src/cli/provisioners.ts';
import { fixtureBuiltin, ironicBuiltin } from '../../src/cli/builtin-provisioners.ts';
import { readEnv } from '../../src/cli/config.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function host(name: string, address: string, labels: Record<string, string> = {}): unknown {
  return {
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, namespace: 'lab', labels },
    spec: {
      online: true, bmc: { address, credentialsName: 'bmc' }, bootMACAddress: `52:54:00:00:00:0${name.length % 10}`,
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' }, inspectionMode: 'disabled',
    },
  };
}

for (const [how, ref] of [['path', './examples/provisioner-plugin'], ['package name', 'metalfleet-provisioner-lab']] as const) {
  test(`plugin - the example plugin loaded by ${how} provisions its hosts beside the fixture's`, async (t) => {
    const warnings: string[] = [];
    const selected = await selectProvisioner({
      flags: { plugin: [ref], provisionerOption: ['lab.provisionMs=5'] }, builtins: [fixtureBuiltin(0)], defaultName: 'fixture',
      cwd: ROOT, log: silentLogger, warn: (line) => warnings.push(line),
    });
    t.deepEqual(selected.active, ['fixture', 'lab']);
    t.deepEqual(warnings, []);
    const schemes = selected.registry.bmcSchemes();
    const substrate = memorySubstrate();
    const store = await openLocalStore(substrate.transport, { pluginBmcSchemes: schemes });
    const applied = await store.applyObjects([
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab' }, stringData: { username: 'u', password: 'p' } },
      host('rack-a', 'lab://pdu-3/7', { [PROVISIONER_LABEL]: 'lab' }),
      host('plain', 'ipmi://10.1.1.1'),
    ], 'test');
    t.true(applied.ok, JSON.stringify(applied.issues));
    const node = await startLocalNode({
      name: 'plugin-test', shardCount: 4, machine: { ...DEFAULT_MACHINE_CONFIG, pluginBmcSchemes: schemes },
      capacity: { limits: {}, defaultLimit: 5, ttlMs: 30_000 },
      supervision: { maxRestarts: 5, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } }, askTimeoutMs: 5_000,
    }, { store: store.resources }, { provisioner: selected.provisioner }, {}, substrate);
    t.teardown(() => node.stop());
    await waitFor(() => node.stats.count('provisioned') === 2, 20_000, 'both hosts provisioned');
    const rack = await store.get('lab/rack-a');
    t.is(rack?.status?.provisioning.ID, 'lab-pdu-3-7', 'registered by the lab plugin');
    t.is(rack?.status?.poweredOn, true);
    t.not((await store.get('lab/plain'))?.status?.provisioning.ID, '', 'the unlabelled host went to the fixture');
    t.false((await store.get('lab/plain'))?.status?.provisioning.ID.startsWith('lab-'));
  });
}

test('plugin - without the plugin loaded, a lab:// address is refused at admission as BMO would', async (t) => {
  const store = await openLocalStore(createMemoryBus().connect('test'));
  t.teardown(() => store.close());
  const applied = await store.applyObjects([host('rack-a', 'lab://pdu-3/7')], 'test');
  t.false(applied.ok);
  t.regex(applied.issues[0]?.message ?? '', /Unknown BMC type 'lab'/);
});

test('plugin - the built-in backends declare no BMC type of their own: a node on Ironic refuses ilo4:// as BMO does', async (t) => {
  const selected = await selectProvisioner({
    flags: {}, builtins: [fixtureBuiltin(0), ironicBuiltin({ urls: ['http://127.0.0.1:1/'], driver: 'redfish', pollMs: 1_000, imageCheck: false }, readEnv({}))],
    defaultName: 'fixture', cwd: ROOT, log: silentLogger, warn: () => undefined,
  });
  // ilo4, ilo5, irmc and WSMAN idrac were declared by the Ironic built-in, so node and demo -f
  // admitted them (validate did not).
  t.deepEqual(selected.registry.bmcSchemes(), []);
  const store = await openLocalStore(createMemoryBus().connect('test'), { pluginBmcSchemes: selected.registry.bmcSchemes() });
  t.teardown(() => store.close());
  for (const scheme of ['ilo4', 'ilo5', 'irmc', 'idrac']) {
    const applied = await store.applyObjects([host('h', `${scheme}://192.0.2.1`)], 'test');
    t.false(applied.ok, scheme);
    t.regex(applied.issues[0]?.message ?? '', new RegExp(`Unknown BMC type '${scheme}'`));
  }
});
