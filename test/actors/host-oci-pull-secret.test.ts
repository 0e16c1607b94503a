// spec.image.ociAuthSecretName as BMO reads it (ImageAuthValidator, secretutils): the docker
// config Secret's entry for the image's registry becomes Ironic's image_pull_secret, base64
// "username:password"; a Secret missing, of another type or without that registry is this
// provisioning attempt's error (bmo.md: a bad OCI secret is a provisioning error), naming no value.
import test from 'ava';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { resolveHostData } from '../../src/actors/host/host-data.ts';
import { registryCredentials } from '../../src/actors/host/registry-credentials.ts';
import { BareMetalHost } from '../../src/api/index.ts';
import type { Secret } from '../../src/api/secret.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import type { CallArgs } from '../../src/machines/bmh/index.ts';
import { bmh, secret } from '../support/node.ts';

const OCI_URL = 'oci://registry.example:5000/os/ubuntu:24.04';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

function dockerConfig(name: string, auths: Record<string, unknown>, type = 'kubernetes.io/dockerconfigjson'): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'lab' }, type, data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) } } as Secret;
}

function ociHost(url = OCI_URL, ociAuthSecretName: string | undefined = 'pull'): BareMetalHost {
  const host = BareMetalHost.parse(bmh('h1'));
  return { ...host, spec: { ...host.spec, image: { url, ...(ociAuthSecretName ? { ociAuthSecretName } : {}) } } };
}

const provision = (host: BareMetalHost): CallArgs => ({ op: 'provision', image: host.spec.image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });

async function storeWith(objects: unknown[]) {
  const store = await openLocalStore(createMemoryBus().connect('test'));
  const applied = await store.applyObjects(objects);
  if (!applied.ok) throw new Error(JSON.stringify(applied));
  return store;
}

test('oci pull secret - the registry entry of a dockerconfigjson Secret goes to the provision call as base64 user:password', async (t) => {
  const store = await storeWith([secret(), dockerConfig('pull', {
    'other.example': { auth: b64('someone:else') },
    'registry.example:5000': { auth: b64('robot:pull-token-value') },
  })]);
  const host = ociHost();
  const resolved = await resolveHostData(host, provision(host), store, 10_000);
  t.true(resolved.ok);
  t.is(resolved.ok ? resolved.data.imagePullSecret : undefined, b64('robot:pull-token-value'));
});

test('oci pull secret - an http image, or an oci one naming no Secret, carries none and reads no Secret', async (t) => {
  const store = await storeWith([secret()]);
  for (const host of [ociHost('http://images/os.qcow2'), ociHost(OCI_URL, '')]) {
    const resolved = await resolveHostData(host, provision(host), store, 10_000);
    t.true(resolved.ok);
    t.is(resolved.ok ? resolved.data.imagePullSecret : 'x', undefined);
  }
});

test('oci pull secret - a missing Secret is a provisioning failure naming it and its namespace', async (t) => {
  const store = await storeWith([secret()]);
  const host = ociHost();
  const resolved = await resolveHostData(host, provision(host), store, 10_000);
  t.deepEqual(resolved, { ok: false, result: { kind: 'failed', message: 'auth secret "pull" not found in namespace "lab"', retryAfterMs: null } });
});

test('oci pull secret - an Opaque Secret, or one without the registry, fails naming the type or registry, never a value', async (t) => {
  const store = await storeWith([secret(), dockerConfig('opaque', { 'registry.example:5000': { auth: b64('robot:opaque-value') } }, 'Opaque'),
    dockerConfig('elsewhere', { 'other.example': { auth: b64('robot:elsewhere-value') } })]);
  const opaque = ociHost(OCI_URL, 'opaque');
  const a = await resolveHostData(opaque, provision(opaque), store, 10_000);
  t.like(a, { ok: false, result: { kind: 'failed', message: 'secret "opaque" has unsupported type "Opaque" (expected kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg)' } });
  const elsewhere = ociHost(OCI_URL, 'elsewhere');
  const b = await resolveHostData(elsewhere, provision(elsewhere), store, 10_000);
  t.like(b, { ok: false, result: { kind: 'failed', message: 'failed to extract credentials from secret "elsewhere": registry registry.example:5000 not found in auth config' } });
  t.false(JSON.stringify([a, b]).includes('value'));
});

test('oci pull secret - registry lookup as docker does it: URL-form keys, username/password fields, legacy dockercfg, Docker Hub names', (t) => {
  const url = dockerConfig('s', { 'https://registry.example:5000/v1/': { username: 'u1', password: 'p:1' } });
  t.deepEqual(registryCredentials(url, 's', OCI_URL), { ok: true, pullSecret: b64('u1:p:1') });
  const legacy = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'lab' }, type: 'kubernetes.io/dockercfg',
    stringData: { '.dockercfg': JSON.stringify({ 'registry.example:5000': { auth: b64('u2:p2') } }) } } as Secret;
  t.deepEqual(registryCredentials(legacy, 's', OCI_URL), { ok: true, pullSecret: b64('u2:p2') });
  const hub = dockerConfig('s', { 'https://index.docker.io/v1/': { auth: b64('u3:p3') } });
  t.deepEqual(registryCredentials(hub, 's', 'oci://docker.io/library/os:1'), { ok: true, pullSecret: b64('u3:p3') });
  const broken = { ...dockerConfig('s', {}), data: { '.dockerconfigjson': b64('{not json') } } as Secret;
  t.deepEqual(registryCredentials(broken, 's', OCI_URL), { ok: false, reason: 'failed to extract credentials from secret "s": failed to parse dockerconfigjson: not JSON' });
  const empty = { ...dockerConfig('s', {}), data: {} } as Secret;
  t.deepEqual(registryCredentials(empty, 's', OCI_URL), { ok: false, reason: 'failed to extract credentials from secret "s": secret does not contain .dockerconfigjson or .dockercfg key' });
});
