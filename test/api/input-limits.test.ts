// Bad input never hurts (issue 19.5): sizes are refused before the expensive step, with what the
// limit is; one document costs its own parse, not the whole file's.
import test from 'ava';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifestDocuments, readManifests } from '../../src/api/manifest.ts';
import { readManifestText } from '../../src/api/manifest-file.ts';
import { MAX_DOCUMENT_BYTES, MAX_MANIFEST_FILE_BYTES, MAX_OBJECT_BYTES, objectSizeErrors } from '../../src/api/limits.ts';
import { validateObject } from '../../src/api/maas/index.ts';
import { runValidate } from '../../src/cli/commands/validate.ts';

function host(name: string, extra: Record<string, unknown> = {}): string {
  return `---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
  namespace: metal3
spec:
  online: true
  bootMACAddress: "00:11:22:33:44:55"
  bmc:
    address: redfish://192.168.111.1:8000/redfish/v1/Systems/1
    credentialsName: ${name}-bmc
${Object.entries(extra).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`).join('')}`;
}

test('manifest limits - a map of 60,000 keys parses in linear time (the yaml package compared each key with every other)', (t) => {
  // On the old parser a document of 60,000 keys took ~16 s (1 MB); 4 MB did not finish in a
  // minute. Judged by how the time grows, not by a wall-clock limit a busy machine can break:
  // four times the keys cost about four times the CPU when linear, sixteen times when quadratic.
  const source = (n: number): string => `{"apiVersion":"metal3.io/v1alpha1","kind":"BareMetalHost","metadata":{"name":"h"},"spec":{"x":{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}}}`;
  const cpuMs = (text: string): number => {
    const before = process.cpuUsage();
    const [doc] = readManifests(text, 'keys.json');
    const used = process.cpuUsage(before);
    t.is(doc?.yamlError, undefined);
    return (used.user + used.system) / 1_000;
  };
  const [small, large] = [source(15_000), source(60_000)];
  t.true(large.length < MAX_DOCUMENT_BYTES);
  cpuMs(small); // warms the parser up: the first run is the JIT's, not the parser's
  const best = (text: string): number => Math.min(cpuMs(text), cpuMs(text));
  const ratio = best(large) / best(small);
  t.true(ratio < 8, `60,000 keys cost ${ratio.toFixed(1)}x the CPU of 15,000 (linear: ~4x, quadratic: ~16x)`);
  const [doc] = readManifests(large, 'keys.json');
  t.is(Object.keys((doc?.object as { spec: { x: object } }).spec.x).length, 60_000);
});

test('manifest limits - a key written twice keeps its last value, as kubectl reads it (test/api/manifest-duplicate-keys.test.ts compares with kubectl)', (t) => {
  const [doc] = readManifests('apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n  name: b\n', 'dup.yaml');
  t.is(doc?.yamlError, undefined);
  t.is(doc?.name, 'b');
  const [flow] = readManifests('{"a": 1, "b": {"c": 1, "c": 2}}', 'dup.json');
  t.is(flow?.yamlError, undefined);
  t.deepEqual(flow?.object, { a: 1, b: { c: 2 } });
});

test('manifest limits - a document over the limit is refused unparsed, naming what it is; the others are read', (t) => {
  const big = host('huge', { description: 'x'.repeat(MAX_DOCUMENT_BYTES) });
  const docs = readManifests(`${host('small-0')}${big}${host('small-1')}`, 'big.yaml');
  t.deepEqual(docs.map((d) => d.name), ['small-0', 'huge', 'small-1']);
  t.deepEqual(docs.map((d) => d.index), [0, 1, 2]);
  const refused = docs[1]!;
  t.is(refused.kind, 'BareMetalHost');
  t.is(refused.object, null);
  t.regex(refused.yamlError ?? '', /^the document is 1 MiB of YAML \(\d+ bytes\); a document may be at most 1 MiB \(1048576 bytes: one object must fit in a NATS message\), so it was not parsed$/);
  // The line of the document's content, below its `---`.
  t.is(docs[2]?.line, host('small-0').split('\n').length + big.split('\n').length);
});

test('manifest limits - nesting past the limit is an error, not a stack overflow', (t) => {
  for (const source of [`${'['.repeat(50_000)}${']'.repeat(50_000)}`, `a: ${'['.repeat(150)}1${']'.repeat(150)}`, Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')]) {
    const [doc] = readManifests(source, 'deep.yaml');
    t.regex(doc?.yamlError ?? '', /nesting deeper than/);
  }
});

test('manifest limits - an alias bomb is refused', (t) => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
  const [doc] = readManifests(lines.join('\n'), 'bomb.yaml');
  t.regex(doc?.yamlError ?? '', /alias/i);
});

test('manifest limits - an alias to the value it is in, and more than 100 aliases, are refused at once', (t) => {
  // 1,000 self-references took the yaml package over a minute, and made a value that contains itself.
  const started = Date.now();
  const [self] = readManifests(`a: &a [${'*a,'.repeat(1000)}]`, 'self.yaml');
  t.regex(self?.yamlError ?? '', /^alias \*a refers to the value it is in at line 1, column \d+$/);
  t.is(self?.object, null);
  const [many] = readManifests(`x: &x 1\nl: [${'*x,'.repeat(101)}]`, 'many.yaml');
  t.regex(many?.yamlError ?? '', /^more than 100 aliases in one document at line 2, column \d+$/);
  t.true(Date.now() - started < 2_000);
  const [fine] = readManifests('base: &b {a: 1}\nuse: *b\nagain: *b\n', 'fine.yaml');
  t.deepEqual(fine?.object, { base: { a: 1 }, use: { a: 1 }, again: { a: 1 } });
  const circular: Record<string, unknown> = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'c' } };
  circular.self = circular;
  t.regex(objectSizeErrors(circular)[0]?.reason ?? '', /cannot be written as JSON/);
});

test('manifest limits - documents come one at a time', (t) => {
  const it = manifestDocuments(`${host('a')}${host('b')}---\nthis: [is broken`, 'f.yaml');
  t.is(it.next().value?.name, 'a');
  t.is(it.next().value?.name, 'b');
  t.truthy(it.next().value?.yamlError);
  t.true(it.next().done);
});

test('manifest limits - an object too big for a NATS message is refused by validation, saying the limit', (t) => {
  const object = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'big', namespace: 'metal3' }, spec: { online: true, description: 'é'.repeat(MAX_OBJECT_BYTES / 2) } };
  const errors = validateObject(object)?.errors ?? [];
  t.is(errors.length, 1);
  t.is(errors[0]?.path, '(root)');
  t.regex(errors[0]?.reason ?? '', /^Too long: the object is [\d.]+ KiB as JSON \(\d+ bytes\); an object may be at most 960 KiB \(983040 bytes\)/);
  t.deepEqual(objectSizeErrors({ small: true }), []);
  const machine = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm' }, spec: { minCPU: 1, minMemory: 1, image: 'x'.repeat(MAX_OBJECT_BYTES) } };
  t.regex(validateObject(machine)?.errors[0]?.reason ?? '', /^Too long/);
});

test('manifest limits - a file over the limit is refused before it is read', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-limits-'));
  try {
    const file = join(dir, 'big.yaml');
    await writeFile(file, '');
    // Sparse: the size is there, the bytes are not written.
    await truncate(file, MAX_MANIFEST_FILE_BYTES + 1);
    const read = await readManifestText(file);
    t.false(read.ok);
    t.is(read.ok ? '' : read.reason, 'is 64 MiB (67108865 bytes); a manifest file may be at most 64 MiB (67108864 bytes): split it into several files');
    const small = join(dir, 'small.yaml');
    await writeFile(small, host('a'));
    const ok = await readManifestText(small);
    t.true(ok.ok && ok.text.includes('name: a'));
    t.deepEqual(await readManifestText(join(dir, 'none.yaml')), { ok: false, reason: 'cannot read: no such file' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('manifest limits - validate names a file over the limit and the document over the limit, and counts them unreadable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-limits-'));
  try {
    const big = join(dir, 'big.yaml');
    await writeFile(big, '');
    await truncate(big, MAX_MANIFEST_FILE_BYTES + 1);
    const doc = join(dir, 'doc.yaml');
    await writeFile(doc, `${host('small')}${host('huge', { description: 'x'.repeat(MAX_DOCUMENT_BYTES) })}`);
    const err: string[] = [];
    const summary = await runValidate([big, doc], [], { out: (l) => err.push(l), err: (l) => err.push(l) });
    t.deepEqual(summary, { checked: 1, invalid: 0, unreadable: 2, unmatched: 0 });
    t.is(err[0], `error: ${big}: is 64 MiB (67108865 bytes); a manifest file may be at most 64 MiB (67108864 bytes): split it into several files`);
    t.regex(err[1] ?? '', new RegExp(`^error: ${doc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: document 2: the document is 1 MiB of YAML`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
