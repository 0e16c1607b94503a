import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { REPO, loadKustomization } from './kustomize.ts';
import type { KubeObject } from './kustomize.ts';

// How deploy/ wires NATS security together: the servers' TLS certificate from cert-manager, the
// three users and their passwords, the controller connecting as node over TLS with its
// authorized keys; and that scripts/nats-dev-certs.sh (which the security tests and local
// clusters use) changes only the lines the ConfigMap marks. test/security/nats-permissions.test.ts
// attacks the configuration itself.

type Json = Record<string, unknown>;
interface Container { args?: string[]; env?: Json[]; volumeMounts?: Array<{ name: string; mountPath: string }> }
interface PodSpec { containers: Container[]; volumes?: Json[] }

const loaded = loadKustomization();

async function find(kind: string, name: string): Promise<KubeObject> {
  const found = (await loaded).objects.find((o) => o.object.kind === kind && o.object.metadata?.name === name);
  if (!found) throw new Error(`deploy/ has no ${kind} ${name}`);
  return found.object;
}

async function pod(name: string): Promise<PodSpec> {
  return ((await find('StatefulSet', name)).spec as { template: { spec: PodSpec } }).template.spec;
}

function flag(args: readonly string[] | undefined, name: string): string | undefined {
  const i = (args ?? []).indexOf(name);
  return i >= 0 ? args?.[i + 1] : undefined;
}

/** The volume mounted at the folder holding `file`, and the file's name in it. */
function volumeOf(spec: PodSpec, container: Container, file: string): { volume: Json; name: string } {
  const mount = container.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
  const volume = spec.volumes?.find((v) => v.name === mount?.name);
  if (!mount || !volume) throw new Error(`no volume mounted for ${file}`);
  return { volume, name: file.slice(mount.mountPath.length + 1) };
}

async function natsConf(): Promise<string> {
  return String(((await find('ConfigMap', 'nats-config')).data as Json)['nats.conf']);
}

/** `*.nats.ns.svc` covers `nats-0.nats.ns.svc`, as a TLS client checks it. */
function covers(dnsNames: readonly string[], host: string): boolean {
  return dnsNames.some((d) => d === host || (d.startsWith('*.') && host.slice(host.indexOf('.') + 1) === d.slice(2)));
}

test('deploy - NATS serves TLS with the certificate cert-manager issues from its own CA', async (t) => {
  const conf = await natsConf();
  const tls = /\ntls \{\n([\s\S]*?)\n\}/.exec(conf)?.[1] ?? '';
  t.not(tls, '', 'a top-level tls block');
  t.regex(tls, /^\s*verify: true$/m, 'clients must show a certificate the CA signed (mutual TLS)');
  const spec = await pod('nats');
  const [server] = spec.containers;
  if (!server) throw new Error('no container');
  const certificate = (await find('Certificate', 'nats-server')).spec as { secretName: string; dnsNames: string[]; ipAddresses?: string[]; issuerRef: { kind: string; name: string } };
  for (const [key, file] of [['cert_file', 'tls.crt'], ['key_file', 'tls.key'], ['ca_file', 'ca.crt']] as const) {
    const path = new RegExp(`${key}: (\\S+)`).exec(tls)?.[1] ?? '';
    const { volume, name } = volumeOf(spec, server, path);
    t.is((volume.secret as Json | undefined)?.secretName, certificate.secretName, `${key} comes from the Certificate's Secret`);
    t.is(name, file);
  }
  // The controller dials each server by name; the CLI through port-forward dials 127.0.0.1.
  const controller = (await pod('metalfleet-controller')).containers[0];
  for (const url of flag(controller?.args, '--nats')?.split(',') ?? []) {
    t.true(covers(certificate.dnsNames, new URL(url).hostname), `${url} matches the certificate`);
  }
  t.true(certificate.ipAddresses?.includes('127.0.0.1'));
  // Issued by a CA Issuer whose CA certificate is cert-manager's too, from a self-signed root.
  const issuer = (await find(certificate.issuerRef.kind, certificate.issuerRef.name)).spec as { ca?: { secretName: string } };
  const ca = (await find('Certificate', 'nats-ca')).spec as { isCA: boolean; secretName: string; issuerRef: { kind: string; name: string } };
  t.is(issuer.ca?.secretName, ca.secretName);
  t.true(ca.isCA);
  t.like((await find(ca.issuerRef.kind, ca.issuerRef.name)).spec as Json, { selfSigned: {} });
});

test('deploy - NATS has the node, operator and viewer users, each with its own password, and no anonymous user', async (t) => {
  const conf = await natsConf();
  const users = [...conf.matchAll(/\{ user: (\w+), password: \$(\w+), permissions: \$(\w+) \}/g)].map((m) => [m[1], m[2], m[3]]);
  t.deepEqual(users, [
    ['node', 'NATS_NODE_PASSWORD', 'NODE'],
    ['operator', 'NATS_OPERATOR_PASSWORD', 'OPERATOR'],
    ['viewer', 'NATS_VIEWER_PASSWORD', 'VIEWER'],
  ]);
  t.notRegex(conf, /^\s*no_auth_user/m);
  t.notRegex(conf, /^\s*(token|accounts)\s*[:={]/m, 'no other way in');
  // One Secret per user, each with only its password, so RBAC can give out one without another.
  const placeholders = new Set<unknown>();
  for (const user of ['node', 'operator', 'viewer']) {
    const secret = (await find('Secret', `metalfleet-nats-${user}`)).stringData as Json;
    t.deepEqual(Object.keys(secret), ['password'], user);
    placeholders.add(secret.password);
    const client = (await find('Certificate', `nats-client-${user}`)).spec as { commonName: string; usages: string[]; issuerRef: { name: string } };
    t.like(client, { commonName: user, issuerRef: { name: 'nats-ca' } });
    t.true(client.usages.includes('client auth'));
  }
  // Each password is its own placeholder: one left unreplaced is not also another user's.
  t.is(placeholders.size, 3);
  t.false((await loaded).objects.some((o) => o.object.kind === 'Secret' && o.object.metadata?.name === 'metalfleet-nats'), 'no Secret holds every password');
});

test('deploy - the controller connects as node over TLS, trusting the NATS CA and taking commands signed by its authorized keys', async (t) => {
  const spec = await pod('metalfleet-controller');
  const [c] = spec.containers;
  if (!c) throw new Error('no container');
  t.is(flag(c.args, '--nats-user'), 'node');
  const password = c.env?.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom as Json | undefined;
  t.deepEqual(password?.secretKeyRef, { name: 'metalfleet-nats-node', key: 'password' });
  t.is(c.env?.find((e) => e.name === 'NATS_USER'), undefined, 'the user is the flag, not a Secret key');
  // No other user's Secret reaches the controller, by environment or volume.
  const refs = JSON.stringify([c.env, spec.volumes]);
  t.notRegex(refs, /metalfleet-nats-(operator|viewer)|nats-client-(operator|viewer)|nats-server-tls/);

  // The CA, the node's certificate and its key, all from the node's client certificate Secret.
  const clientSecret = String(((await find('Certificate', 'nats-client-node')).spec as Json).secretName);
  for (const [name, file] of [['--nats-ca', 'ca.crt'], ['--nats-cert', 'tls.crt'], ['--nats-key', 'tls.key']] as const) {
    const mounted = volumeOf(spec, c, flag(c.args, name) ?? '');
    t.is((mounted.volume.secret as { secretName?: string } | undefined)?.secretName, clientSecret, name);
    t.is(mounted.name, file, name);
  }

  const keys = volumeOf(spec, c, flag(c.args, '--authorized-keys') ?? '');
  const map = await find('ConfigMap', String((keys.volume.configMap as Json | undefined)?.name));
  t.is(map.metadata?.name, 'metalfleet-authorized-keys');
  const text = String((map.data as Json)[keys.name]);
  // Shipped with a commented example only: nobody is authorized until someone is listed.
  t.regex(text, /^# operator UA\.\.\. alice$/m);
  t.deepEqual(text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#')), []);
});

const exec = promisify(execFile);

test('deploy - scripts/nats-dev-certs.sh renders the shipped nats.conf, changing only the lines marked "local:"', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-nats-conf-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await exec('sh', [join(REPO, 'scripts/nats-dev-certs.sh'), dir], { env: { ...process.env, NATS_PORT: '4999' } });
  const rendered = (await readFile(join(dir, 'nats.conf'), 'utf8')).split('\n');
  const shipped = (await natsConf()).split('\n');
  // What follows each marker in the shipped text, and what the script may put there instead.
  const replaced: Record<string, { shipped: number | 'block'; local: number }> = {
    listen: { shipped: 1, local: 1 }, http: { shipped: 1, local: 1 }, pid_file: { shipped: 1, local: 1 },
    tls: { shipped: 3, local: 3 }, store_dir: { shipped: 1, local: 1 }, sync_interval: { shipped: 1, local: 1 },
    cluster: { shipped: 'block', local: 0 },
  };
  const strip = (lines: string[], side: 'shipped' | 'local'): string[] => {
    const out: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      out.push(line);
      const marker = /^\s*# local: (\w+)/.exec(line)?.[1];
      if (!marker) continue;
      const skip = replaced[marker]?.[side];
      t.not(skip, undefined, `unknown marker ${marker}`);
      if (skip === 'block') while (i < lines.length && lines[i] !== '}') i++;
      else i += skip ?? 0;
    }
    return out;
  };
  t.deepEqual(strip(rendered, 'local'), strip(shipped, 'shipped'));
  t.true(rendered.includes('listen: 127.0.0.1:4999'));
  t.true(rendered.includes(`  cert_file: "${dir}/server-cert.pem"`));
  t.false(rendered.some((l) => l.startsWith('cluster')), 'a local server has no routes');
  t.true(rendered.includes('  verify: true'));
  // The passwords are made once, readable only by their owner; each user's in its own folder.
  for (const file of ['server.env', 'node/node.env', 'operator/operator.env', 'viewer/viewer.env', 'node/key.pem', 'viewer/key.pem', 'server-key.pem', 'ca-key.pem']) {
    const { stdout } = await exec('stat', ['-c', '%a', join(dir, file)]);
    t.is(stdout.trim(), '600', file);
  }
  for (const user of ['node', 'operator', 'viewer']) {
    const { stdout } = await exec('stat', ['-c', '%a', join(dir, user)]);
    t.is(stdout.trim(), '700', user);
  }
});
