// A List (as `kubectl get bmh -o yaml` prints) given to apply and delete: its items are read one
// by one, and an item they refuse is named by its line, its document and its place in the List.
// Both refuse before any connection (the NATS URL below answers nothing).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

const NO_NODE = ['--nats', 'nats://127.0.0.1:1'];

async function listFile(t: { teardown(fn: () => unknown): void }, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mf-list-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'list.yaml');
  await writeFile(file, text);
  return file;
}

const HOST = '- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: w-0, namespace: metal3}\n  spec: {online: true}\n';

test('list manifests - apply refuses a Secret item of a List, naming the item, its line and never its value', async (t) => {
  const file = await listFile(t, `apiVersion: v1\nkind: List\nitems:\n${HOST}- apiVersion: v1\n  kind: Secret\n  metadata: {name: bmc, namespace: metal3}\n  stringData: {password: list-item-secret-pw}\n`);
  const r = await metalfleet('apply', '-f', file, ...NO_NODE);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /^error: .*list\.yaml:8:3: Secret metal3\/bmc: Secrets are never stored in NATS/m);
  t.regex(r.stderr, /^nothing was applied$/m);
  t.notRegex(r.stderr, /cannot connect/);
  t.false(r.stderr.includes('list-item-secret-pw') || r.stdout.includes('list-item-secret-pw'));
});

test('list manifests - delete refuses a List inside a List, naming the item, and deletes nothing', async (t) => {
  const file = await listFile(t, `apiVersion: v1\nkind: List\nitems:\n${HOST}- apiVersion: v1\n  kind: List\n  items: []\n`);
  const r = await metalfleet('delete', '-f', file, ...NO_NODE);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /^error: .*list\.yaml:8: document 1 item 2: a List inside a List: kubectl does not expand nested Lists/m);
  t.regex(r.stderr, /^nothing was deleted$/m);
  t.notRegex(r.stderr, /cannot connect/);
});

test('list manifests - apply of an empty List refuses as a file with no objects, before any connection', async (t) => {
  const file = await listFile(t, 'apiVersion: v1\nkind: List\nitems: []\n');
  const r = await metalfleet('apply', '-f', file, ...NO_NODE);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /list\.yaml: no objects in it \(empty, only comments, or an empty List\); nothing was applied/);
  t.notRegex(r.stderr, /cannot connect/);
});

test('list manifests - demo -f checks a List item by item and refuses a bad item naming it', async (t) => {
  const file = await listFile(t, `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHostList\nitems:\n${HOST}- apiVersion: metal3.io/v1alpha1\n  kind: BareMetalHost\n  metadata: {name: w-1, namespace: metal3}\n  spec: {online: true, bootMode: BIOS-ish}\n`);
  const r = await metalfleet('demo', '-f', file, '--json', '--timeout', '5');
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /list\.yaml:11:24: BareMetalHost metal3\/w-1: spec\.bootMode: /);
  t.notRegex(r.stderr, /item 0/);
});
