import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { CRD_DIR, NS, WIDGETS, meta, widget } from './helpers.ts';

const MAIN = fileURLToPath(new URL('../support/kube-api/main.ts', import.meta.url));

function start(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import=tsx', MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    const [line] = (await once(lines, 'line')) as [string];
    return line;
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

test('process - prints its URL and kubeconfig, serves client-node with strict namespaces, exits 0 on SIGTERM', async (t) => {
  const child = start(['--port', '0', '--crd-dir', CRD_DIR, '--watch-timeout-seconds', '5']);
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const info = JSON.parse(await firstLine(child)) as { url: string; kubeconfig: string };
  t.regex(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.true(existsSync(info.kubeconfig));

  const kc = new KubeConfig();
  kc.loadFromFile(info.kubeconfig);
  const api = kc.makeApiClient(CustomObjectsApi);
  // Strict by default as a process: the namespace must exist first, as on a cluster.
  const refused = await api.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget('a') }).then(() => undefined, (e: { code?: number }) => e.code);
  t.is(refused, 404);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  const created = await api.createNamespacedCustomObject({ ...WIDGETS, namespace: NS, body: widget('a') });
  t.regex(String(meta(created).resourceVersion), /^\d+$/);
  t.is(kc.getCurrentCluster()?.server, info.url);

  child.kill('SIGTERM');
  t.deepEqual(await exited, [0, null]);
  t.false(existsSync(info.kubeconfig), 'the kubeconfig goes with the server');
});

test('process - a bad flag exits 2 with a message', async (t) => {
  const child = start(['--port', 'abc']);
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  t.is(code, 2);
  t.is(stderr, 'kube-api: --port: must be a whole number\n');
});
