// A kubeconfig that cannot be used: the error names the file and what in it is wrong (the
// context, cluster or user it misses), and never a credential from it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { loadKubeConfig } from '../../src/adapters/kube/index.ts';

const TOKEN = 'Sup3rS3cretT0ken';

const dirs: string[] = [];
test.after.always(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function kubeconfig(contexts: string, current: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  dirs.push(dir);
  const path = join(dir, 'config');
  await writeFile(path, [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: lab',
    '  cluster: {server: "https://127.0.0.1:6443"}',
    'users:',
    '- name: admin',
    `  user: {token: "${TOKEN}"}`,
    'contexts:',
    contexts,
    `current-context: ${current}`,
    '',
  ].join('\n'));
  return path;
}

test('kubeconfig - a current-context the file does not define is named, with the contexts it has', async (t) => {
  const path = await kubeconfig('- name: lab\n  context: {cluster: lab, user: admin}', 'prod');
  const error = t.throws(() => loadKubeConfig({ kind: 'file', path }));
  t.true(error.message.includes(path), 'names the file');
  t.regex(error.message, /context "prod"/);
  t.regex(error.message, /not defined|no context/);
  t.regex(error.message, /lab/, 'lists the contexts it has');
  t.false(error.message.includes(TOKEN));
});

test('kubeconfig - a context naming a missing cluster or user says which', async (t) => {
  const cluster = await kubeconfig('- name: lab\n  context: {cluster: other, user: admin}', 'lab');
  const e1 = t.throws(() => loadKubeConfig({ kind: 'file', path: cluster }));
  t.regex(e1.message, /context "lab"/);
  t.regex(e1.message, /cluster "other"/);
  const user = await kubeconfig('- name: lab\n  context: {cluster: lab, user: nobody}', 'lab');
  const e2 = t.throws(() => loadKubeConfig({ kind: 'file', path: user }));
  t.true(e2.message.includes(user), 'names the file');
  t.regex(e2.message, /user "nobody"/);
  t.false(`${e1.message}${e2.message}`.includes(TOKEN));
});

test('kubeconfig - a missing file is named with what is wrong in words', (t) => {
  const path = join(tmpdir(), 'no-such-dir-metalfleet', 'config');
  const error = t.throws(() => loadKubeConfig({ kind: 'file', path }));
  t.true(error.message.includes(path));
  t.regex(error.message, /does not exist|no such file/i);
});
