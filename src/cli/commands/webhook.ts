import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { startWebhookServer, WebhookTlsError } from '../../adapters/kube/webhook/index.ts';
import { CliError } from '../cli-error.ts';
import { intFlag, readEnv } from '../config.ts';
import { createLogger, LOG_LEVELS, logLevelFlag } from '../logger.ts';
import type { ProvisionerFlags } from '../provisioners.ts';
import { addPluginFlags, declaredBmcSchemes } from '../provisioners.ts';
import { untilSignalled } from '../signals.ts';

// `metalfleet webhook`: the admission rules of `metalfleet validate` as a Kubernetes validating
// webhook, until SIGINT/SIGTERM. The certificate files are re-read when cert-manager rotates them.

interface WebhookFlags extends Pick<ProvisionerFlags, 'plugin' | 'pluginDir'> {
  port: number;
  host: string;
  tlsCert: string;
  tlsKey: string;
  logLevel?: string;
}

function portFlag(value: string): number {
  const n = intFlag('--port', 0)(value);
  if (n > 65_535) throw new CliError(`--port: expected a port from 0 to 65535, got "${value}"`, 2);
  return n;
}

function fileFlag(name: string): (value: string) => string {
  return (value: string) => {
    if (value.trim() === '') throw new CliError(`${name}: expected a file path, got ""`, 2);
    return value;
  };
}

const HELP = `
Serves POST /validate and POST /mutate (admission.k8s.io/v1 AdmissionReview; /mutate fills in
the CRD defaults as a mutating webhook) and GET or HEAD /healthz over HTTPS.
Prints one JSON line {"url": "..."} on stdout once listening; logs go to stderr.

Example:
  metalfleet webhook --port 9443 --tls-cert /tmp/k8s-webhook-server/serving-certs/tls.crt \\
    --tls-key /tmp/k8s-webhook-server/serving-certs/tls.key

and a ValidatingWebhookConfiguration whose webhook has
  clientConfig: { service: { name: metalfleet-webhook, namespace: metal3, path: /validate, port: 443 } }
  rules: [{ apiGroups: [metal3.io], apiVersions: [v1alpha1], resources: [baremetalhosts],
            operations: [CREATE, UPDATE] },
          { apiGroups: [infrastructure.cluster.x-k8s.io], apiVersions: [v1beta1],
            resources: [maasclusters, maasmachines, maasmachinetemplates], operations: [CREATE, UPDATE] }]
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
`;

export function register(program: Command): void {
  const webhook = program
    .command('webhook')
    .description(descriptionOf('webhook'))
    .requiredOption('--tls-cert <file>', 'PEM serving certificate (chain); re-read when it changes', fileFlag('--tls-cert'))
    .requiredOption('--tls-key <file>', 'PEM private key of the certificate; re-read when it changes', fileFlag('--tls-key'))
    .option('--port <n>', 'listen on this port (0: a free one)', portFlag, 9443)
    .option('--host <address>', 'listen on this address', '0.0.0.0')
    .option('--log-level <level>', `${LOG_LEVELS.join('|')} on stderr (default: METALFLEET_LOG_LEVEL or info)`, logLevelFlag);
  addPluginFlags(webhook)
    .addHelpText('after', HELP)
    .action(async (flags: WebhookFlags) => {
      const env = readEnv();
      const log = createLogger(flags.logLevel ?? env.METALFLEET_LOG_LEVEL ?? 'info', { node: 'webhook' });
      const pluginBmcSchemes = await declaredBmcSchemes({ flags, ...(env.METALFLEET_PLUGIN_DIR ? { pluginDir: env.METALFLEET_PLUGIN_DIR } : {}), cwd: process.cwd(), warn: (line) => process.stderr.write(`${line}\n`) });
      let server;
      try {
        server = await startWebhookServer({ port: flags.port, host: flags.host, certFile: flags.tlsCert, keyFile: flags.tlsKey, log, pluginBmcSchemes });
      } catch (err) {
        if (err instanceof WebhookTlsError) {
          throw new CliError(`${err.file === 'cert' ? '--tls-cert' : '--tls-key'} ${err.path}: ${err.reason}`, 2);
        }
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new CliError(`--port ${flags.port}: already in use on ${flags.host}`, 1);
        if (code === 'EACCES') throw new CliError(`--port ${flags.port}: permission denied (ports below 1024 need privileges)`, 1);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new CliError(`--host ${flags.host}: not an address of this machine`, 1);
        throw err;
      }
      // Listen for the signals before printing: whoever reads the line may signal at once.
      const signalled = untilSignalled();
      process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
      const signal = await signalled;
      log.info({ signal }, 'webhook stopping');
      await server.close();
    });
}
