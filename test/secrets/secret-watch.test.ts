import test from 'ava';
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretValue } from '../../src/api/secret.ts';
import type { Secret } from '../../src/api/secret.ts';
import { kubeSecretSource } from '../../src/adapters/kube/secret-source.ts';
import { ResourceCache } from '../../src/adapters/kube/resource-cache.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';
import { createSecretMap } from '../../src/adapters/store/memory-secrets.ts';
import { loadSecretFiles } from '../../src/adapters/store/nats-secrets.ts';
import { watchSecretsByKey } from '../../src/adapters/store/secret-changes.ts';
import type { SecretEvent } from '../../src/adapters/store/secret-changes.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

function secretYaml(name: string, data: Record<string, string>): string {
  return ['apiVersion: v1', 'kind: Secret', `metadata: {name: ${name}, namespace: lab}`, 'stringData:', ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)].join('\n');
}

async function tempDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-secret-watch-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const has = (events: readonly SecretEvent[], key: string, change: SecretEvent['change']): boolean => events.some((e) => e.key === key && e.change === change);

test('secret files - a watched folder announces Secrets that appear, change and go, and get reads the new value', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.yaml'), secretYaml('a', { password: 'one' }));
  const files = await loadSecretFiles([dir], { debounceMs: 10 });
  const events: SecretEvent[] = [];
  const stop = files.watch((e) => events.push(e));
  t.teardown(stop);

  await writeFile(join(dir, 'b.yaml'), secretYaml('b', { userData: '#cloud-config' }));
  await waitFor(() => has(events, 'lab/b', 'appeared'), 5_000, 'b appeared');
  t.is(secretValue((await files.get('lab', 'b'))!, 'userData'), '#cloud-config');

  await writeFile(join(dir, 'a.yaml'), secretYaml('a', { password: 'two' }));
  await waitFor(() => has(events, 'lab/a', 'changed'), 5_000, 'a changed');
  t.is(secretValue((await files.get('lab', 'a'))!, 'password'), 'two');

  await unlink(join(dir, 'b.yaml'));
  await waitFor(() => has(events, 'lab/b', 'removed'), 5_000, 'b removed');
  t.is(await files.get('lab', 'b'), undefined);
  t.deepEqual(files.keys, ['lab/a']);
  t.false(JSON.stringify(events).includes('two'), 'events carry names only');
});

test('secret files - a file that stops parsing keeps its last good Secrets and is reported by file, document and field, never by value', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'creds.yaml');
  await writeFile(file, secretYaml('bmc', { username: 'admin', password: 'good-password' }));
  const files = await loadSecretFiles([dir], { debounceMs: 10 });
  const problems: string[] = [];
  const events: SecretEvent[] = [];
  const stop = files.watch((e) => events.push(e), { onProblem: (m) => problems.push(m) });
  t.teardown(stop);

  await writeFile(file, ['apiVersion: v1', 'kind: Secret', 'metadata: {name: bmc, namespace: lab}', 'data: {password: "not base64 !! leaked-password"}'].join('\n'));
  await waitFor(() => problems.length > 0, 5_000, 'the problem reported');
  t.regex(problems[0]!, /creds\.yaml document 1 \(line 1\): Secret lab\/bmc data\.password: /);
  t.regex(problems[0]!, /stay in use/);
  t.false(problems.join('\n').includes('leaked-password'));
  t.is(secretValue((await files.get('lab', 'bmc'))!, 'password'), 'good-password', 'the last good Secret stays');
  t.false(has(events, 'lab/bmc', 'removed'));

  // Fixed again: the new value is announced.
  await writeFile(file, secretYaml('bmc', { username: 'admin', password: 'new-password' }));
  await waitFor(() => has(events, 'lab/bmc', 'changed'), 5_000, 'bmc changed');
  t.is(secretValue((await files.get('lab', 'bmc'))!, 'password'), 'new-password');
});

test('secret files - a single file replaced the way editors save (write elsewhere, rename over) is read again', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'only.yaml');
  await writeFile(file, secretYaml('s', { value: 'v1' }));
  const files = await loadSecretFiles([file], { debounceMs: 10 });
  const events: SecretEvent[] = [];
  const stop = files.watch((e) => events.push(e));
  t.teardown(stop);
  // Another file in the same folder is none of this source's business.
  await writeFile(join(dir, 'other.yaml'), secretYaml('other', { value: 'x' }));
  await writeFile(join(dir, 'only.yaml.tmp'), secretYaml('s', { value: 'v2' }));
  await rename(join(dir, 'only.yaml.tmp'), file);
  await waitFor(() => has(events, 'lab/s', 'changed'), 5_000, 's changed');
  t.is(secretValue((await files.get('lab', 's'))!, 'value'), 'v2');
  t.is(await files.get('lab', 'other'), undefined);
});

test('secret files - the first load still refuses an invalid file outright', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'bad.yaml'), ['apiVersion: v1', 'kind: Secret', 'metadata: {name: s, namespace: lab}', 'data: {password: "not base64 !! very-secret"}'].join('\n'));
  const error = await t.throwsAsync(loadSecretFiles([dir]));
  t.regex(error!.message, /invalid Secret manifests \(nothing was loaded\): .*bad\.yaml document 1/);
  t.false(error!.message.includes('very-secret'));
});

test('secret map - set and restore announce what changed, and nothing for the same Secret again', (t) => {
  const map = createSecretMap();
  const events: SecretEvent[] = [];
  map.watch((e) => events.push(e));
  const s = (value: string): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'lab' }, stringData: { value } });
  t.true(map.set(s('1')));
  t.false(map.set(s('1')));
  t.true(map.set(s('2')));
  map.restore('lab/x', undefined);
  t.deepEqual(events, [{ key: 'lab/x', change: 'appeared' }, { key: 'lab/x', change: 'changed' }, { key: 'lab/x', change: 'removed' }]);
});

test('secret watch by key - a change reaches only the listeners of its Secret, until they unsubscribe', (t) => {
  let emit: (e: SecretEvent) => void = () => undefined;
  let stopped = false;
  const keyed = watchSecretsByKey((onEvent) => {
    emit = onEvent;
    return () => {
      stopped = true;
    };
  });
  const a: string[] = [];
  const b: string[] = [];
  const offA = keyed.subscribe('lab/a', (c) => a.push(c));
  keyed.subscribe('lab/b', (c) => b.push(c));
  keyed.subscribe('lab/b', () => {
    throw new Error('a broken listener');
  });
  emit({ key: 'lab/a', change: 'appeared' });
  emit({ key: 'lab/b', change: 'changed' });
  emit({ key: 'lab/c', change: 'appeared' });
  offA();
  emit({ key: 'lab/a', change: 'removed' });
  t.deepEqual(a, ['appeared']);
  t.deepEqual(b, ['changed']);
  keyed.close();
  t.true(stopped);
});

test('kube secret source - the informer cache announces Secrets by name, and a metadata-only update is no change', async (t) => {
  const cache = new ResourceCache(RESOURCES.Secret, silentLogger);
  const source = kubeSecretSource(cache, silentLogger);
  const events: SecretEvent[] = [];
  source.watch!((e) => events.push(e));
  const raw = (rv: string, data: Record<string, string>, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ud', namespace: 'lab', resourceVersion: rv, ...(labels ? { labels } : {}) }, data });
  cache.observe('add', raw('1', { userData: Buffer.from('one').toString('base64') }));
  cache.observe('update', raw('2', { userData: Buffer.from('one').toString('base64') }, { touched: 'yes' }));
  cache.observe('update', raw('3', { userData: Buffer.from('two').toString('base64') }));
  t.is(secretValue((await source.get('lab', 'ud'))!, 'userData'), 'two');
  cache.observe('delete', raw('4', {}));
  t.deepEqual(events, [{ key: 'lab/ud', change: 'appeared' }, { key: 'lab/ud', change: 'changed' }, { key: 'lab/ud', change: 'removed' }]);
  t.is(await source.get('lab', 'ud'), undefined);
});
