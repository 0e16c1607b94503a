import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metalfleet } from '../cli/run.ts';

// A kubeconfig that loads (nothing listens there); flag errors come before any connection.
async function kubeconfig(): Promise<{ path: string; done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-kubeconfig-'));
  const path = join(dir, 'config');
  await writeFile(path, [
    'apiVersion: v1', 'kind: Config', 'current-context: t',
    'clusters: [{name: t, cluster: {server: "http://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
    'users: [{name: t, user: {token: x}}]',
    'contexts: [{name: t, context: {cluster: t, user: t}}]', '',
  ].join('\n'));
  return { path, done: () => rm(dir, { recursive: true, force: true }) };
}

test('node cli - --secrets is refused with --kubeconfig: Secrets come from Kubernetes', async (t) => {
  const k = await kubeconfig();
  try {
    const run = await metalfleet('node', '--kubeconfig', k.path, '--secrets', 'x.yaml');
    t.is(run.code, 2);
    t.regex(run.stderr, /--secrets: with --kubeconfig or --in-cluster, BMC credentials and user data come from Kubernetes Secrets/);
  } finally {
    await k.done();
  }
});

test('node cli - --maas needs its key, in every mode', async (t) => {
  const k = await kubeconfig();
  try {
    const run = await metalfleet('node', '--kubeconfig', k.path, '--nats', 'nats://127.0.0.1:9', '--maas', 'http://127.0.0.1:9/MAAS');
    t.is(run.code, 2);
    t.regex(run.stderr, /--maas: give the MAAS API key with --maas-key-file, --maas-key or MAAS_API_KEY/);
  } finally {
    await k.done();
  }
});

test('node cli - --kubeconfig and --in-cluster exclude each other; --namespace needs one; a missing kubeconfig is named', async (t) => {
  t.regex((await metalfleet('node', '--kubeconfig', 'a', '--in-cluster')).stderr, /--kubeconfig and --in-cluster: choose one/);
  t.regex((await metalfleet('node', '--namespace', 'x', '--nats', 'nats://127.0.0.1:9')).stderr, /--namespace applies to --kubeconfig or --in-cluster/);
  const missing = await metalfleet('node', '--kubeconfig', '/nonexistent/kubeconfig');
  t.is(missing.code, 2);
  t.regex(missing.stderr, /--kubeconfig: cannot load kubeconfig \/nonexistent\/kubeconfig: ENOENT/);
});

test('node cli - --help describes the Kubernetes modes and that MAAS kinds are sharded in every mode', async (t) => {
  const help = await metalfleet('node', '--help');
  t.regex(help.stdout, /--kubeconfig <path>/);
  t.regex(help.stdout, /--in-cluster/);
  t.regex(help.stdout, /--namespace <ns>/);
  t.regex(help.stdout, /MaasMachines and MaasClusters are sharded with the hosts: a Cluster API cluster is one unit/);
});
