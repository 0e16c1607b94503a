// Running the real kubectl 1.32 against a test server. A missing kubectl is a failure, never a
// skip: execFile rejects with ENOENT and the test fails.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import { startKubeApi } from '../support/kube-api/index.ts';
import type { KubeApiOptions, KubeApiServer } from '../support/kube-api/index.ts';

export const KUBECTL = '/usr/bin/kubectl';
export const DEPLOY_CRDS = fileURLToPath(new URL('../../deploy/crds', import.meta.url));
export const BMH_CRD = join(DEPLOY_CRDS, 'metal3.io_baremetalhosts.yaml');

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Kubectl {
  readonly server: KubeApiServer;
  readonly dir: string;
  /** kubectl with the server's kubeconfig and a discovery cache of its own. */
  run(...args: string[]): Promise<KubectlResult>;
  /** Like run, but the test fails unless kubectl exits 0. */
  ok(...args: string[]): Promise<string>;
  /** A file in the test's folder. */
  file(name: string, text: string): Promise<string>;
  /**
   * A long-running kubectl (`get --watch`): resolves with its stdout so far once `until` holds
   * for it (or rejects after timeoutMs), then ends the process.
   */
  stream(args: readonly string[], until: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
}

export async function withKubectl(t: ExecutionContext, opts: KubeApiOptions = {}): Promise<Kubectl> {
  const server = await startKubeApi({ namespaces: 'strict', ...opts });
  const dir = await mkdtemp(join(tmpdir(), 'kube-api-kubectl-'));
  t.teardown(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  let n = 0;
  const run = (...args: string[]): Promise<KubectlResult> => new Promise((resolve, reject) => {
    // A fresh cache per call: kubectl keeps discovery for 6 h, as it would across a CRD install.
    const cache = join(dir, `cache-${n++}`);
    execFile(KUBECTL, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cache, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(err);
      else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
  return {
    server,
    dir,
    run,
    async ok(...args) {
      const r = await run(...args);
      if (r.code !== 0) t.fail(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    },
    async file(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    stream(args, until, timeoutMs = 20_000) {
      const cache = join(dir, `cache-${n++}`);
      const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cache, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      return new Promise<string>((resolve, reject) => {
        const finish = (err?: Error): void => {
          clearTimeout(timer);
          child.kill();
          if (err) reject(err);
          else resolve(stdout);
        };
        const timer = setTimeout(() => finish(new Error(`kubectl ${args.join(' ')}: no match after ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`)), timeoutMs);
        child.stdout.on('data', (b: Buffer) => {
          stdout += b.toString();
          if (until(stdout)) finish();
        });
        child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
        child.once('error', finish);
        child.once('exit', (code) => finish(until(stdout) ? undefined : new Error(`kubectl ${args.join(' ')} exited ${String(code)}; stdout: ${stdout}; stderr: ${stderr}`)));
      });
    },
  };
}

export function hostYaml(name: string, namespace: string, spec: string): string {
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  bmc:
    address: ipmi://10.0.0.1
    credentialsName: ${name}-bmc
${spec}`;
}

/** Deployment d1 in `default`, selecting app=d1, with `containers` (YAML list items indented 6) as its pod's. */
export function deploymentYaml(containers: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: d1, namespace: default}
spec:
  selector:
    matchLabels: {app: d1}
  template:
    metadata:
      labels: {app: d1}
    spec:
      containers:
${containers}`;
}

/** The rows of kubectl's table output, split on runs of spaces. */
export function rows(stdout: string): string[][] {
  return stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
}
