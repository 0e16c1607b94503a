// The plugin loader and registry: a plugin is checked against the contract when it loads and when
// its factory runs, and a bad one is refused with a message naming it and what is wrong.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { PROVISIONER_CONTRACT_VERSION, PluginError, ProvisionerRegistry, loadPlugin, loadPluginFolder } from '../../src/plugin/index.ts';
import { silentLogger } from '../../src/ports/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = 'test/fixtures/plugins';
const ctx = { options: {}, log: silentLogger };

test('plugin - the example loads by path, as a folder with a package.json, and checks out', async (t) => {
  const plugin = await loadPlugin('./examples/provisioner-plugin', ROOT);
  t.is(plugin.name, 'lab');
  t.is(plugin.contractVersion, PROVISIONER_CONTRACT_VERSION);
  t.is(plugin.resource, 'BareMetalHost');
  const registry = new ProvisionerRegistry();
  registry.register(plugin, './examples/provisioner-plugin');
  const provisioner = await registry.createProvisioner('lab', { options: { provisionMs: '5' }, log: silentLogger });
  t.is(provisioner.name, 'lab');
  t.deepEqual(registry.bmcSchemes(), ['lab']);
});

test('plugin - the three bad plugins are refused, each with its reason', async (t) => {
  const version = await t.throwsAsync(loadPlugin(`${FIXTURES}/folder/wrong-version.mjs`, ROOT), { instanceOf: PluginError });
  t.is(version?.message, `provisioner plugin ${FIXTURES}/folder/wrong-version.mjs: implements contract version 2; this metalfleet implements version 1 (use a plugin release built for it)`);
  const factory = await t.throwsAsync(loadPlugin(`${FIXTURES}/folder/missing-factory.mjs`, ROOT), { instanceOf: PluginError });
  t.is(factory?.message, `provisioner plugin ${FIXTURES}/folder/missing-factory.mjs: create: must be a function (the factory)`);
  // A factory that throws passes the load and fails when the registry runs it: at start-up.
  const registry = new ProvisionerRegistry();
  registry.register(await loadPlugin(`${FIXTURES}/folder/throwing-factory.mjs`, ROOT), 'throwing-factory.mjs');
  const thrown = await t.throwsAsync(registry.createProvisioner('throws', ctx), { instanceOf: PluginError });
  t.is(thrown?.message, 'provisioner plugin throws (throwing-factory.mjs): create() failed: cannot reach the PDU controller at 10.9.9.9');
  t.false(thrown?.retryable);
});

test('plugin - modules that are not plugins, missing paths and packages, duplicate names', async (t) => {
  const none = await t.throwsAsync(loadPlugin(`${FIXTURES}/not-a-plugin.mjs`, ROOT));
  t.regex(none?.message ?? '', /not-a-plugin\.mjs: exports no plugin: expected a default export/);
  const broken = await t.throwsAsync(loadPlugin(`${FIXTURES}/broken-import.mjs`, ROOT));
  t.regex(broken?.message ?? '', /broken-import\.mjs: failed to load: Cannot find package "pdu-sdk"/);
  const missing = await t.throwsAsync(loadPlugin('./no/such/plugin.mjs', ROOT));
  t.is(missing?.message, `provisioner plugin ./no/such/plugin.mjs: no file or folder at ${ROOT}no/such/plugin.mjs`);
  const unknown = await t.throwsAsync(loadPlugin('metalfleet-provisioner-nowhere', ROOT));
  t.is(unknown?.message, 'provisioner plugin metalfleet-provisioner-nowhere: no installed package has this name (npm install it beside metalfleet, or give a path)');
  const registry = new ProvisionerRegistry();
  const lab = await loadPlugin('./examples/provisioner-plugin', ROOT);
  registry.register(lab, 'first');
  t.throws(() => registry.register(lab, 'second'), { message: 'provisioner plugin second: name "lab" is already registered by first' });
  t.throws(() => registry.register({ ...lab, name: 'Bad Name' }, 'third'), { message: /third: name: must be lower-case letters/ });
});

test('plugin - a factory result missing methods, or a plugin of the other resource, is refused by name', async (t) => {
  const registry = new ProvisionerRegistry();
  registry.register({ name: 'half', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: () => ({ name: 'half', register: async () => ({ kind: 'done' }) }) }, 'inline');
  const half = await t.throwsAsync(registry.createProvisioner('half', ctx));
  t.regex(half?.message ?? '', /^provisioner plugin half \(inline\): create\(\) returned a Provisioner without capacity, inspect, prepare, provision/);
  const wrongKind = await t.throwsAsync(registry.createMaasDriver('half', ctx));
  t.is(wrongKind?.message, 'provisioner plugin half: drives BareMetalHost, not MaasMachine (known for MaasMachine: none)');
  const nothing = await t.throwsAsync(registry.createProvisioner('nope', ctx));
  t.is(nothing?.message, 'provisioner plugin nope: no such provisioner (known for BareMetalHost: half)');
});

test('plugin - service and firmware are optional methods: absent is fine, present must be methods, listed must be there', async (t) => {
  const full = {
    name: 'x', capacity: () => ({ pool: 'x', exempt: false }),
    ...Object.fromEntries(['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete'].map((m) => [m, async () => ({ kind: 'done' })])),
  };
  const registry = new ProvisionerRegistry();
  const plugin = (name: string, operations: string[], made: object) => registry.register({ name, contractVersion: 1, resource: 'BareMetalHost', supports: { operations }, create: () => made }, 'inline');
  plugin('without', ['register'], full);
  plugin('with', ['register', 'service', 'firmware'], { ...full, service: async () => ({ kind: 'done' }), firmware: async () => ({ kind: 'done' }) });
  plugin('not-a-method', ['register'], { ...full, service: true });
  plugin('claims', ['register', 'firmware'], full);
  const without = await registry.createProvisioner('without', ctx);
  t.is(without.service, undefined);
  t.is(typeof (await registry.createProvisioner('with', ctx)).firmware, 'function');
  const bad = await t.throwsAsync(registry.createProvisioner('not-a-method', ctx));
  t.is(bad?.message, 'provisioner plugin not-a-method (inline): create() returned a Provisioner whose service is a boolean, not a method');
  const claims = await t.throwsAsync(registry.createProvisioner('claims', ctx));
  t.is(claims?.message, 'provisioner plugin claims (inline): lists firmware among its operations, but create() returned a Provisioner without a firmware method');
});

test('plugin - a folder loads what is good and returns the rest refused, one reason each', async (t) => {
  const { plugins, refused } = await loadPluginFolder(`${FIXTURES}/folder`);
  t.deepEqual(plugins.map((p) => p.plugin.name).sort(), ['lab', 'throws']);
  t.deepEqual(refused.map((r) => r.reason).sort(), [
    'create: must be a function (the factory)',
    'implements contract version 2; this metalfleet implements version 1 (use a plugin release built for it)',
  ]);
  const gone = await t.throwsAsync(loadPluginFolder(`${FIXTURES}/nowhere`));
  t.regex(gone?.message ?? '', /nowhere: plugin folder cannot be read \(ENOENT\)/);
});
