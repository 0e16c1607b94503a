// on, y and true are one key in YAML 1.1 (the boolean true), as kubectl reads manifests. kubectl
// keeps the last of them (its JSON key "true"); metalfleet refused the map as a duplicate key.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readManifests } from '../../src/api/manifest.ts';

const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: flags
  labels:
    on: a
    y: b
    true: c
data:
  off: "1"
  n: "2"
  k: v
`;

// kubectl's own reading, without a cluster: annotate --local prints the object it read.
function kubectlReads(file: string): unknown {
  const out = execFileSync('kubectl', ['annotate', '--local', '-o', 'json', '-f', file, 'probe=x'], { encoding: 'utf8' });
  const object = JSON.parse(out) as { metadata: { annotations?: Record<string, string> } };
  delete object.metadata.annotations;
  return object;
}

test('manifest bool keys - on, y and true in one map: the last is kept, as kubectl keeps it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-bool-'));
  try {
    const file = join(dir, 'flags.yaml');
    await writeFile(file, CONFIG_MAP);
    const [doc] = readManifests(CONFIG_MAP, file);
    t.is(doc?.yamlError, undefined);
    t.deepEqual(doc?.object, kubectlReads(file));
    t.like(doc?.object, { metadata: { labels: { true: 'c' } }, data: { false: '2' } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('manifest bool keys - a key written twice the same way keeps its last value, as kubectl does', (t) => {
  const [doc] = readManifests('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  on: a\n  on: b\n', 'k.yaml');
  t.is(doc?.yamlError, undefined);
  t.deepEqual((doc?.object as { data?: unknown } | null)?.data, { true: 'b' });
});
