// A manifest that is not UTF-8 (a Latin-1 password, a file saved as UTF-16 by an editor) was
// decoded with each bad byte replaced by U+FFFD: a Secret's password changed without a word, and
// a UTF-16 file became "not a Kubernetes object (no kind)". Now the file is refused, naming it,
// its encoding and the line, never the bytes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readManifestText } from '../../src/api/manifest-file.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';

const SECRET = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bmc\n  namespace: lab\nstringData:\n  username: admin\n  password: ';

test('manifest encoding - a file with bytes that are not UTF-8 is refused with its line, never decoded lossily', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-encoding-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const latin1 = join(dir, 'latin1.yaml');
  // "pässwörd-hunter2" in Latin-1: ä and ö are single bytes that UTF-8 has no use for.
  await writeFile(latin1, Buffer.concat([Buffer.from(SECRET), Buffer.from('pässwörd-hunter2\n', 'latin1')]));
  const read = await readManifestText(latin1);
  t.false(read.ok);
  if (!read.ok) {
    t.is(read.reason, 'is not UTF-8 text (line 8 has a byte that is not UTF-8): save it as UTF-8');
    t.false(read.reason.includes('hunter2'));
  }
  const utf16 = join(dir, 'utf16.yaml');
  await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${SECRET}x\n`, 'utf16le')]));
  const read16 = await readManifestText(utf16);
  t.deepEqual(read16, { ok: false, reason: 'is UTF-16 text: save it as UTF-8 (manifests are read as UTF-8)' });
  // UTF-8, with or without a byte order mark, reads as before.
  const bom = join(dir, 'bom.yaml');
  await writeFile(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${SECRET}pässwörd\n`)]));
  const readBom = await readManifestText(bom);
  t.true(readBom.ok && readBom.text.includes('pässwörd'));
});

test('manifest encoding - node --secrets refuses a Secret file that is not UTF-8, naming the file, never the bytes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-encoding-secrets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'bmc.yaml');
  await writeFile(file, Buffer.concat([Buffer.from(SECRET), Buffer.from('pässwörd-hunter2\n', 'latin1')]));
  const error = await t.throwsAsync(loadSecretFiles([file]));
  t.regex(error?.message ?? '', /bmc\.yaml.*is not UTF-8 text \(line 8 has a byte that is not UTF-8\): save it as UTF-8/);
  t.false((error?.message ?? '').includes('hunter2'));
});
