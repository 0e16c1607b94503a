// The serving certificate: rotated files are served without a restart (as a Secret volume swaps
// them, and as a plain rewrite does), a half-written pair keeps the old one, and files that cannot
// serve are refused at start naming the file.
import { copyFile, mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import test from 'ava';
import { startWebhookServer, WebhookTlsError } from '../../src/adapters/kube/webhook/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitUntil } from '../support/wait.ts';
import { admissionReview, issue, makePki, review, serve, servedFingerprint, type Issued } from './support.ts';

const fingerprint = (files: Issued) => new X509Certificate(files.cert).fingerprint256;

const host = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'worker-0', namespace: 'metal3' },
  spec: { online: true, bmc: { address: 'ipmi://192.0.2.10', credentialsName: 'c' } },
};

// The layout kubelet gives a Secret volume: tls.crt -> ..data/tls.crt, ..data -> ..<timestamp>/.
async function secretVolume(dir: string, version: string, files: Issued): Promise<void> {
  const data = join(dir, `..${version}`);
  await mkdir(data);
  await copyFile(files.certFile, join(data, 'tls.crt'));
  await copyFile(files.keyFile, join(data, 'tls.key'));
}

// kubelet's atomic update: a new timestamped directory, then one rename of the ..data symlink.
async function swapSecretVolume(dir: string, version: string, files: Issued): Promise<void> {
  await secretVolume(dir, version, files);
  await symlink(`..${version}`, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
}

test('webhook tls - a certificate rotated in a Secret volume is served without a restart', async (t) => {
  const pki = await makePki(t);
  const first = await issue(pki, 'first');
  const second = await issue(pki, 'second');
  const volume = join(pki.dir, 'serving-certs');
  await mkdir(volume);
  await secretVolume(volume, '2026_01_01_00_00_00.1', first);
  await symlink('..2026_01_01_00_00_00.1', join(volume, '..data'));
  await symlink('..data/tls.crt', join(volume, 'tls.crt'));
  await symlink('..data/tls.key', join(volume, 'tls.key'));

  // The poll is left at its default (10 s): the directory watch is what picks the swap up.
  const { server, log } = await serve(t, { ...first, certFile: join(volume, 'tls.crt'), keyFile: join(volume, 'tls.key') });
  t.is(await servedFingerprint(server.port, pki.ca), fingerprint(first));

  await swapSecretVolume(volume, '2026_03_01_00_00_00.2', second);
  await waitUntil(async () => (await servedFingerprint(server.port, pki.ca)) === fingerprint(second), 5_000, 'the new certificate is served');
  t.true(log.lines.some((l) => l.msg === 'webhook certificate reloaded' && l.obj.fingerprint256 === fingerprint(second) && l.obj.subject === 'CN=metalfleet-webhook-second'));
  t.false(log.lines.some((l) => l.level === 'warn'), 'a swap never shows a half-written pair');
  // And it serves reviews on it.
  t.true((await review(server.url, pki.ca, admissionReview('CREATE', host))).response.allowed);
});

// Each file replaced whole (write elsewhere, rename over), one after the other.
async function replaceFile(path: string, data: Buffer): Promise<void> {
  await writeFile(`${path}.new`, data);
  await rename(`${path}.new`, path);
}

test('webhook tls - a pair replaced file by file: the old certificate stays until the key matches', async (t) => {
  const pki = await makePki(t);
  const first = await issue(pki, 'first');
  const second = await issue(pki, 'second');
  const live = await issue(pki, 'live');
  await writeFile(live.certFile, first.cert);
  await writeFile(live.keyFile, first.key);
  const { server, log } = await serve(t, live, { certPollMs: 50 });
  t.is(await servedFingerprint(server.port, pki.ca), fingerprint(first));

  // The certificate first: it does not match the key yet.
  await replaceFile(live.certFile, second.cert);
  await waitUntil(() => log.lines.some((l) => l.level === 'warn'), 5_000, 'the mismatch is reported');
  const warning = log.lines.find((l) => l.level === 'warn');
  t.like(warning, { msg: 'webhook certificate not reloaded; serving the previous one', obj: { file: 'key', path: live.keyFile, reason: `does not match the certificate in ${live.certFile}` } });
  t.is(await servedFingerprint(server.port, pki.ca), fingerprint(first));

  await replaceFile(live.keyFile, second.key);
  await waitUntil(async () => (await servedFingerprint(server.port, pki.ca)) === fingerprint(second), 5_000, 'the new certificate is served');
  t.true((await review(server.url, pki.ca, admissionReview('CREATE', host))).response.allowed);
  // However many polls saw the mismatch, it was reported once.
  t.is(log.lines.filter((l) => l.level === 'warn').length, 1);
});

test('webhook tls - files that cannot serve are refused at start, naming the file', async (t) => {
  const pki = await makePki(t);
  const good = await issue(pki, 'good');
  const other = await issue(pki, 'other');
  const garbage = join(pki.dir, 'garbage.pem');
  await writeFile(garbage, 'not a certificate\n');
  const start = (certFile: string, keyFile: string) => startWebhookServer({ port: 0, certFile, keyFile, log: silentLogger });

  const cases: Array<[string, string, { file: string; path: string; reason: string }]> = [
    [join(pki.dir, 'missing.crt'), good.keyFile, { file: 'cert', path: join(pki.dir, 'missing.crt'), reason: 'cannot read: no such file' }],
    [good.certFile, join(pki.dir, 'missing.key'), { file: 'key', path: join(pki.dir, 'missing.key'), reason: 'cannot read: no such file' }],
    [garbage, good.keyFile, { file: 'cert', path: garbage, reason: 'not a PEM certificate' }],
    [good.keyFile, good.keyFile, { file: 'cert', path: good.keyFile, reason: 'not a PEM certificate' }],
    [good.certFile, good.certFile, { file: 'key', path: good.certFile, reason: 'not an unencrypted PEM private key' }],
    [good.certFile, other.keyFile, { file: 'key', path: other.keyFile, reason: `does not match the certificate in ${good.certFile}` }],
    [pki.dir, good.keyFile, { file: 'cert', path: pki.dir, reason: 'cannot read: is a directory' }],
  ];
  for (const [certFile, keyFile, expected] of cases) {
    const err = await t.throwsAsync(start(certFile, keyFile), { instanceOf: WebhookTlsError });
    t.like(err, expected);
  }
});
