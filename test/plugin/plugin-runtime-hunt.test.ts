// A plugin at run time, hunted: a factory or method failure never carries a secret from the
// plugin's options or the host's credentials, and a method that answers something that is not an
// OpResult is refused as a failed, non-retryable call naming the plugin and the operation.
import test from 'ava';
import { PluginError, ProvisionerRegistry } from '../../src/plugin/index.ts';
import type { HostData } from '../../src/plugin/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { invoke } from '../../src/ports/index.ts';

const SECRET = 'pdu-s3cret-9931';
const HOST_PASSWORD = 'bmc-pass-7781';
const OPS = ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete'];

function plugin(name: string, create: (options: Readonly<Record<string, string>>) => unknown): unknown {
  return { name, contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] }, create: ({ options }: { options: Record<string, string> }) => create(options) };
}

function provisioner(register: (host: HostData) => unknown): object {
  return {
    name: 'p', capacity: () => ({ pool: 'p', exempt: false }),
    ...Object.fromEntries(OPS.map((m) => [m, async () => ({ kind: 'done' })])),
    register: async (host: HostData) => register(host),
  };
}

const host = {
  key: 'lab/h', namespace: 'lab', name: 'h', uid: 'u', provisionerId: '', spec: { online: true, bmc: { address: 'lab://pdu/1', credentialsName: 'bmc' } },
  credentials: { username: 'admin', password: HOST_PASSWORD },
} as unknown as HostData;
const register = { op: 'register', restartOnFailure: false, credentialsChanged: false } as const;

test('plugin hunt - a factory failure quoting a credential option names the plugin and the cause, never the secret', async (t) => {
  const registry = new ProvisionerRegistry();
  registry.register(plugin('leaky', (o) => { throw new Error(`login to ${o['url'] ?? ''} as admin:${o['password'] ?? ''} refused`); }), 'leaky.mjs');
  const err = await t.throwsAsync(registry.createProvisioner('leaky', { options: { url: 'http://pdu.lab', password: SECRET }, log: silentLogger }), { instanceOf: PluginError });
  t.regex(err?.message ?? '', /^provisioner plugin leaky \(leaky\.mjs\): create\(\) failed: login to http:\/\/pdu\.lab as admin:\S+ refused$/);
  t.false(err?.retryable);
  t.false(JSON.stringify({ message: err?.message, reason: err?.reason, cause: String((err?.cause as Error | undefined)?.message) }).includes(SECRET));
});

for (const [what, answer] of [['undefined', undefined], ['an unknown kind', { kind: 'ok' }], ['a failure without a message', { kind: 'failed' }], ['a string', 'done'], ['continuing without afterMs', { kind: 'continuing' }]] as const) {
  test(`plugin hunt - a method answering ${what} is refused as failed, naming the plugin and the op`, async (t) => {
    const registry = new ProvisionerRegistry();
    registry.register(plugin('odd', () => provisioner(() => answer)), 'odd.mjs');
    const made = await registry.createProvisioner('odd', { options: {}, log: silentLogger });
    const result = await invoke(made, host, register);
    t.is(result.kind, 'failed');
    t.like(result, { retryAfterMs: null });
    t.regex(result.kind === 'failed' ? result.message : '', /^provisioner plugin odd \(odd\.mjs\): register answered .+, not an OpResult/);
  });
}

test('plugin hunt - a well-formed answer passes through unchanged', async (t) => {
  const registry = new ProvisionerRegistry();
  const answer = { kind: 'continuing', afterMs: 50, started: true };
  registry.register(plugin('fine', () => provisioner(() => answer)), 'fine.mjs');
  const made = await registry.createProvisioner('fine', { options: {}, log: silentLogger });
  t.deepEqual(await invoke(made, host, register), answer);
  t.is(made.name, 'p');
});

test('plugin hunt - a method failing or throwing with the host password or a credential option in its message does not pass the secret on', async (t) => {
  const registry = new ProvisionerRegistry();
  registry.register(plugin('fails', (o) => provisioner((h) => ({ kind: 'failed', message: `BMC refused ${h.credentials?.username ?? ''}/${h.credentials?.password ?? ''} (token ${o['apiToken'] ?? ''})`, retryAfterMs: null }))), 'fails.mjs');
  registry.register(plugin('throws', () => provisioner((h) => { throw new Error(`bad password ${h.credentials?.password ?? ''}`); })), 'throws.mjs');
  const fails = await invoke(await registry.createProvisioner('fails', { options: { apiToken: SECRET }, log: silentLogger }), host, register);
  t.is(fails.kind, 'failed');
  t.regex(fails.kind === 'failed' ? fails.message : '', /^BMC refused admin\/\S+ \(token \S+\)$/);
  const thrown = await invoke(await registry.createProvisioner('throws', { options: {}, log: silentLogger }), host, register).then((r) => r, (err: unknown) => ({ kind: 'thrown', message: (err as Error).message }));
  t.regex(thrown.kind === 'failed' || thrown.kind === 'transient' || thrown.kind === 'thrown' ? thrown.message : '', /bad password/);
  t.false(JSON.stringify([fails, thrown]).includes(SECRET));
  t.false(JSON.stringify([fails, thrown]).includes(HOST_PASSWORD));
});
