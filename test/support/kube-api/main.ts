// The Kubernetes API test server as a process, for multi-node tests:
//   node --import=tsx test/support/kube-api/main.ts --port 0 --crd-dir DIR [--namespaces strict|implicit]
// (strict by default here: system namespaces exist, CRDs are objects, as kubectl expects)
// prints one JSON line {"url":…,"kubeconfig":…} and exits 0 on SIGTERM or SIGINT.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startKubeApi } from './server.ts';

const count = z.string().regex(/^\d+$/, 'must be a whole number').transform(Number);
const Args = z.object({
  port: count.default(0),
  'crd-dir': z.array(z.string()).default([]),
  'history-limit': count.optional(),
  'watch-timeout-seconds': count.optional(),
  namespaces: z.enum(['strict', 'implicit']).default('strict'),
});

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'crd-dir': { type: 'string', multiple: true },
    'history-limit': { type: 'string' },
    'watch-timeout-seconds': { type: 'string' },
    namespaces: { type: 'string' },
  },
  strict: true,
});
const parsed = Args.safeParse(values);
if (!parsed.success) {
  const issue = parsed.error.issues[0];
  process.stderr.write(`kube-api: --${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}\n`);
  process.exit(2);
}
const args = parsed.data;
const server = await startKubeApi({
  port: args.port,
  crdDir: args['crd-dir'],
  historyLimit: args['history-limit'],
  watchTimeoutSeconds: args['watch-timeout-seconds'],
  namespaces: args.namespaces,
});
process.stdout.write(`${JSON.stringify({ url: server.url, kubeconfig: server.kubeconfigPath })}\n`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
