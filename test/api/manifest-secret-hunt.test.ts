// A Secret's `data` written as `base64` prints it, wrapped at 76 columns, in a block scalar
// (`userData: |` and the lines), is what the API server takes: Go's base64 decoder skips line
// breaks. validate, demo -f and a node's --secrets refused it, "data values must be base64".
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretErrors } from '../../src/api/manifest-secret.ts';
import { secretContent, secretValue } from '../../src/api/secret.ts';
import { openLocalStore } from '../../src/adapters/store/local-store.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';
import { createMemoryBus } from '../../src/bus/index.ts';

const CLOUD_CONFIG = `#cloud-config\nusers:\n  - name: ops\n    ssh_authorized_keys:\n      - ssh-ed25519 ${'A'.repeat(68)} ops@lab\n`;
// As `base64` writes it: lines of 76 characters.
const WRAPPED = Buffer.from(CLOUD_CONFIG).toString('base64').replace(/.{76}/g, '$&\n');

const manifest = (newline: string) => [
  'apiVersion: v1',
  'kind: Secret',
  'metadata:',
  '  name: h1-user-data',
  '  namespace: lab',
  'data:',
  '  password: |',
  '    aHVudGVyMg==',
  '  userData: |',
  ...WRAPPED.trimEnd().split('\n').map((line) => `    ${line}`),
  '',
].join(newline);

test('secret data - base64 wrapped over lines is base64, as the API server reads it', (t) => {
  t.true(WRAPPED.trimEnd().includes('\n'));
  const object = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'lab' }, data: { userData: WRAPPED, password: 'aHVudGVyMg==\r\n' } };
  t.deepEqual(secretErrors(object), []);
  // What Go's decoder refuses stays refused, and is not quoted.
  const errors = secretErrors({ ...object, data: { password: 'hunter2!!' } });
  t.deepEqual(errors.map((e) => e.path), ['data.password']);
  t.false(JSON.stringify(errors).includes('hunter2'));
  t.deepEqual(secretErrors({ ...object, data: { password: 'aHVu dGVy' } }).map((e) => e.path), ['data.password']);
});

test('secret data - demo -f\'s store keeps a Secret whose data is wrapped, and its values read back whole', async (t) => {
  const transport = createMemoryBus().connect('hunt-secret');
  const store = await openLocalStore(transport);
  t.teardown(async () => {
    await store.close();
    await transport.close();
  });
  for (const newline of ['\n', '\r\n']) {
    const result = await store.applyText(manifest(newline), 'user-data.yaml');
    t.deepEqual(result.issues, []);
    t.deepEqual(result.secrets, ['lab/h1-user-data']);
    const secret = store.secrets.peek('lab/h1-user-data');
    t.truthy(secret);
    t.is(secretContent(secret!, 'userData'), CLOUD_CONFIG);
    t.is(secretValue(secret!, 'password'), 'hunter2');
  }
});

test('secret data - a node\'s --secrets loads a Secret whose data is wrapped', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-secret-data-hunt-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'user-data.yaml');
  await writeFile(file, manifest('\n'));
  const secrets = await loadSecretFiles([file]);
  const secret = await secrets.get('lab', 'h1-user-data');
  t.is(secret === undefined ? undefined : secretContent(secret, 'userData'), CLOUD_CONFIG);
});
