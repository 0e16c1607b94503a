// `metalfleet node --kubeconfig` as a process, single-process mode (no NATS): /readyz waits for
// the informers, hosts applied to Kubernetes are provisioned, SIGTERM stops it cleanly.
import test from 'ava';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { ROOT } from '../cli/run.ts';
import { startApi, stateOf } from './support/kube-node.ts';

test('kube cli - metalfleet node --kubeconfig: not ready until the informers listed, then drives the hosts', async (t) => {
  const api = await startApi();
  // The first lists fail: the node must report not-ready until its informers get through.
  const failing = api.failNext({ verb: 'list', resource: 'baremetalhosts', status: 503, times: 3 });
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'node', '--kubeconfig', api.kubeconfigPath, '--name', 'kube-cli', '--health-port', '0', '--log-level', 'warn', '--shards', '8'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr.on('data', (b: Buffer) => stderr.push(b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      void exited.then((code) => reject(new Error(`node exited (${code}): ${stderr.join('')}`)));
    });
    const info = JSON.parse(first) as { health: string; mode: string };
    t.is(info.mode, 'kubernetes');
    const readyz = async () => {
      const res = await fetch(`${info.health}/readyz`);
      return { code: res.status, body: await res.text() };
    };
    const early = await readyz();
    if (failing.fired < 3) {
      t.is(early.code, 503);
      t.regex(early.body, /not ready: (Kubernetes informers not synced|starting|waiting for the leader lease)/);
    }
    await waitUntil(async () => (await readyz()).code === 200, 30_000, '/readyz 200');
    t.is(failing.fired, 3);
    api.create(secret('bmc', 'lab') as KubeObject);
    for (let i = 0; i < 5; i++) api.create(bmh(`c-${i}`) as KubeObject);
    await waitUntil(() => [0, 1, 2, 3, 4].every((i) => stateOf(api, `lab/c-${i}`) === 'provisioned'), 30_000, 'hosts provisioned');
    const metrics = await (await fetch(`${info.health}/metrics`)).text();
    t.regex(metrics, /metalfleet_kube_informer_errors\{resource="BareMetalHost",node="kube-cli"\} 3/);
    t.regex(metrics, /metalfleet_hosts\{state="provisioned",node="kube-cli"\} 5/);
    child.kill('SIGTERM');
    t.is(await exited, 0, stderr.join(''));
  } finally {
    child.kill('SIGKILL');
    await api.close();
  }
});
