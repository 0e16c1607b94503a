// Generated manifests, valid-ish and hostile, through validate and the apply pipeline: nothing
// throws, nothing hangs, every document gets an answer (an error is fine), memory stays bounded.
import test from 'ava';
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readManifests } from '../../src/api/manifest.ts';
import { validateObject } from '../../src/api/maas/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { validateDocuments } from '../../src/adapters/store/validate.ts';
import { runValidate } from '../../src/cli/commands/validate.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { fuzzRuns, fuzzSeed, replayHint } from './seed.ts';

const seed = fuzzSeed();
// One input may take this long at most (the slowest legitimate one, 1 MiB of YAML, takes ~1 s).
const PER_INPUT_MS = 5_000;

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '\u0000', '\u001b[31m', '\u202e', 'a\r\nb', '..', '-', 'A'.repeat(300), 'x'.repeat(5000), '\ud800', 'worker-0', 'metal3'),
);

// A field value: usually the right type, often not.
const value = fc.oneof(
  { weight: 3, arbitrary: oddText },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
);

function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

const host = fc.record({
  apiVersion: fc.oneof(fc.constant('metal3.io/v1alpha1'), value),
  kind: fc.oneof(fc.constantFrom('BareMetalHost', 'Secret', 'MaasMachine', 'MaasCluster', 'BareMetalhost', 'Pod'), value),
  metadata: fc.oneof(
    fc.record({
      name: fc.oneof(fc.constantFrom('worker-0', 'w.1'), value),
      namespace: fc.oneof(fc.constant('metal3'), value),
      labels: fc.dictionary(oddText, value, { maxKeys: 3 }),
      annotations: fc.dictionary(fc.oneof(oddText, fc.constantFrom('reboot.metal3.io/x', 'inspect.metal3.io', 'status.metal3.io')), value, { maxKeys: 3 }),
    }, { requiredKeys: [] }),
    value,
  ),
  spec: fc.oneof(
    fc.record({
      online: value,
      bootMACAddress: fc.oneof(fc.constant('00:11:22:33:44:55'), value),
      bmc: fc.record({ address: fc.oneof(fc.constantFrom('redfish://10.0.0.1/redfish/v1/Systems/1', 'ipmi://[::1]:623', 'idrac-virtualmedia://h/redfish'), value), credentialsName: value }, { requiredKeys: [] }),
      image: fc.record({ url: value, checksum: value, checksumType: value }, { requiredKeys: [] }),
      deep: fc.integer({ min: 0, max: 300 }).map(nested),
      minCPU: value,
      dnsDomain: value,
    }, { requiredKeys: [] }),
    value,
  ),
  stringData: fc.dictionary(oddText, value, { maxKeys: 2 }),
}, { requiredKeys: [] });

// A host that passes every rule but one field: what reaches the stores when a rule is missing.
const almostValidHost = fc.record({
  name: fc.oneof({ weight: 2, arbitrary: fc.constant('worker-0') }, { weight: 1, arbitrary: oddText }),
  namespace: fc.oneof({ weight: 2, arbitrary: fc.constant('metal3') }, { weight: 1, arbitrary: oddText }),
  description: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.integer({ min: 900_000, max: 1_040_000 }).map((n) => 'd'.repeat(n)) }),
  label: fc.oneof({ weight: 2, arbitrary: fc.constant('rack-1') }, { weight: 1, arbitrary: oddText }),
}).map(({ name, namespace, description, label }) => ({
  apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost',
  metadata: { name, namespace, labels: { rack: label } },
  spec: {
    online: true, bootMACAddress: '00:11:22:33:44:55', ...(description ? { description } : {}),
    bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'bmc' },
  },
}));

// Texts no serializer would write: what a hand, a tool or an attacker might.
const hostileText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `a: ${'{x: '.repeat(n)}1${'}'.repeat(n)}`),
  fc.integer({ min: 1, max: 400 }).map((n) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')),
  fc.integer({ min: 2, max: 12 }).map((n) => {
    // A billion laughs: each level refers to the one before n times.
    const lines = ['l0: &l0 "lol"'];
    for (let i = 1; i <= n; i++) lines.push(`l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(', ')}]`);
    return lines.join('\n');
  }),
  fc.integer({ min: 2, max: 2000 }).map((n) => `kind: BareMetalHost\nmetadata:\n${Array.from({ length: n }, () => '  name: dup\n').join('')}`),
  // Aliases to the value they are in (a value containing itself), and many aliases.
  fc.integer({ min: 1, max: 3000 }).map((n) => `a: &a [${'*a,'.repeat(n)}]`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `kind: BareMetalHost\nx: &x {k: v}\nl: [${'*x, '.repeat(n)}]`),
  // One map of many keys: the yaml package compared each key with every other (quadratic).
  fc.integer({ min: 30_000, max: 45_000 }).map((n) => `{"kind":"BareMetalHost","spec":{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}}`),
  fc.constantFrom('---\n---\n...\n', '%YAML 1.2\n---\na: 1\n', '%TAG ! tag:x,2000:\n--- !foo\nb: 1', 'a: !!binary "AAAA"\n', 'a: !!set {x, y}\n', 'a: *undefined\n', '? [a, b]\n: c\n', 'a: "\\u0000\\ud800"\n', '\uFEFFkind: Secret\n'),
  fc.integer({ min: 1, max: 3 }).map((n) => `apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {k: "${'x'.repeat(n * 600_000)}"}\n`),
);

const manifest = fc.oneof(
  { weight: 4, arbitrary: fc.array(host, { minLength: 1, maxLength: 4 }).map((docs) => docs.map((d) => stringify(d, { aliasDuplicateObjects: false })).join('---\n')) },
  { weight: 2, arbitrary: fc.array(host, { minLength: 1, maxLength: 4 }).map((docs) => docs.map((d) => JSON.stringify(d)).join('\n---\n')) },
  { weight: 3, arbitrary: hostileText },
  { weight: 2, arbitrary: almostValidHost.map((h) => JSON.stringify(h)) },
  { weight: 1, arbitrary: fc.array(fc.oneof(hostileText, host.map((d) => stringify(d, { aliasDuplicateObjects: false }))), { maxLength: 3 }).map((parts) => parts.join('\n---\n')) },
);

function timed<T>(what: string, fn: () => T): T {
  const started = Date.now();
  const out = fn();
  const ms = Date.now() - started;
  if (ms > PER_INPUT_MS) throw new Error(`${what} took ${ms} ms`);
  return out;
}

test('fuzz manifests - validate and the apply pipeline answer every generated manifest, in bounded time and memory', async (t) => {
  t.timeout(300_000);
  t.log(replayHint(seed));
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  t.teardown(() => substrate.transport.close());
  const heapBefore = process.memoryUsage().heapUsed;
  let documents = 0;
  let applied = 0;
  try {
    await fc.assert(fc.asyncProperty(manifest, async (text) => {
      const docs = timed('reading', () => readManifests(text, 'fuzz.yaml'));
      for (const doc of docs) {
        documents += 1;
        if (doc.yamlError !== undefined) {
          if (typeof doc.yamlError !== 'string' || doc.yamlError.length === 0) throw new Error('an empty YAML error');
          continue;
        }
        const result = timed('validating', () => validateObject(doc.object));
        if (result !== null && !Array.isArray(result.errors)) throw new Error('validateObject answered without errors[]');
      }
      timed('admission', () => validateDocuments(docs));
      const before = Date.now();
      const outcome = await store.applyText(text, 'fuzz.yaml');
      if (Date.now() - before > PER_INPUT_MS) throw new Error(`apply took ${Date.now() - before} ms`);
      if (outcome.ok) {
        applied += 1;
        // What apply takes, the cluster's store can hold: a key NATS can carry, a record within
        // one NATS message (1 MiB) — else it would fail at the store, retried forever.
        for (const { key } of outcome.hosts) {
          if (key.length > 253 + 63 + 1) throw new Error(`apply took a ${key.length}-character key`);
          const stored = await store.get(key);
          const bytes = Buffer.byteLength(JSON.stringify(stored));
          if (bytes > 1024 * 1024) throw new Error(`apply took ${key}, ${bytes} bytes: more than a NATS message holds`);
        }
      }
      else if (outcome.issues.length === 0) throw new Error('apply refused with no issue to show');
    }), { seed, numRuns: fuzzRuns(800) });
  } catch (error) {
    t.log(replayHint(seed));
    throw error;
  }
  // What the runs left behind is the store's hosts, not the parser's trees.
  const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  t.true(grownMb < 512, `heap grew ${grownMb.toFixed(0)} MB`);
  t.true(documents > 800, `only ${documents} documents`);
  t.log(`${documents} documents, ${applied} manifests applied, heap +${grownMb.toFixed(0)} MB`);
});

test('fuzz manifests - the validate command reports every generated file and returns', async (t) => {
  // Generous: 60 validate runs are CPU-bound, and on 2 cores the suite runs other files beside them.
  t.timeout(300_000);
  const dir = await mkdtemp(join(tmpdir(), 'mf-fuzz-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  let n = 0;
  await fc.assert(fc.asyncProperty(manifest, async (text) => {
    const file = join(dir, `m${n++}.yaml`);
    await writeFile(file, text);
    const out: string[] = [];
    const summary = await runValidate([file], [], { out: (l) => out.push(l), err: (l) => out.push(l) });
    // Every run ends with its summary line; what it checked or could not read adds up.
    if (!/objects? checked/.test(out.at(-1) ?? '')) throw new Error(`no summary: ${out.slice(-3).join(' | ')}`);
    if (summary.checked < summary.invalid) throw new Error('more invalid than checked');
  }), { seed: seed + 1, numRuns: fuzzRuns(60) });
  t.pass(replayHint(seed));
});
