// A plugin that hangs, hunted: a factory that never settles fails the start naming the plugin,
// and a method that never answers comes back as a transient failure naming the plugin and the
// operation, instead of holding its host (and its place at the backend) for ever.
import test from 'ava';
import { PluginError, ProvisionerRegistry } from '../../src/plugin/index.ts';
import type { HostData } from '../../src/plugin/index.ts';
import { invoke, silentLogger } from '../../src/ports/index.ts';

const OPS = ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete'];
const never = (): Promise<never> => new Promise(() => undefined);
const ctx = { options: {}, log: silentLogger };

test('plugin hunt - a factory that never settles is refused after the create timeout, naming the plugin', async (t) => {
  t.timeout(5_000);
  const registry = new ProvisionerRegistry({ createTimeoutMs: 20 });
  registry.register({ name: 'stuck', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: never }, 'stuck.mjs');
  const err = await t.throwsAsync(registry.createProvisioner('stuck', ctx), { instanceOf: PluginError });
  t.is(err?.message, 'provisioner plugin stuck (stuck.mjs): create() did not finish within 0.02 s');
  t.false(err?.retryable);
});

test('plugin hunt - a method that never answers is a transient failure after the call timeout, naming the plugin and the op', async (t) => {
  t.timeout(5_000);
  const registry = new ProvisionerRegistry({ callTimeoutMs: 20 });
  const made = { name: 'slow', capacity: () => ({ pool: 'slow', exempt: false }), ...Object.fromEntries(OPS.map((m) => [m, never])) };
  registry.register({ name: 'slow', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: () => made }, 'slow.mjs');
  const provisioner = await registry.createProvisioner('slow', ctx);
  const host = { key: 'lab/h', namespace: 'lab', name: 'h', uid: 'u', provisionerId: '', spec: {}, credentials: null } as unknown as HostData;
  t.deepEqual(await invoke(provisioner, host, { op: 'powerOn', force: false }), { kind: 'transient', message: 'provisioner plugin slow (slow.mjs): powerOn did not answer within 0.02 s' });
});
