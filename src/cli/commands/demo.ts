import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createFixtureProvisioner } from '../../adapters/fixture/index.ts';
import { createMemoryStore } from '../../adapters/store/index.ts';
import { formatApplyIssue } from '../../adapters/store/validate.ts';
import { CliError } from '../cli-error.ts';
import { intFlag, nodeConfig, readEnv } from '../config.ts';
import { generateFleet } from '../demo/generate.ts';
import { runDemo } from '../demo/run.ts';
import { createLogger } from '../logger.ts';

interface DemoFlags {
  hosts: number;
  file?: string[];
  json?: boolean;
  limit?: number;
  latency: number;
  timeout: number;
  persist?: string;
  logLevel?: string;
  progress?: boolean;
}

export function register(program: Command): void {
  program
    .command('demo')
    .description('run the embedded default: memory store, fixture backend, no NATS or Kubernetes')
    .option('--hosts <n>', 'generate this many hosts (includes the demo-* scenario hosts)', intFlag('--hosts', 1), 100)
    .option('-f, --file <path...>', 'load BareMetalHosts and their Secrets from YAML manifests instead')
    .option('--limit <n>', 'capacity slots per backend pool (default: PROVISIONING_LIMIT or 20; 0 = unlimited)', intFlag('--limit', 0))
    .option('--latency <ms>', 'fixture latency of every backend call', intFlag('--latency', 0), 100)
    .option('--timeout <seconds>', 'give up after this long', intFlag('--timeout', 1), 120)
    .option('--persist <file>', 'keep host status in this file so a rerun resumes where it stopped')
    .option('--json', 'print a JSON summary at the end')
    .option('--no-progress', 'no progress output')
    .option('--log-level <level>', 'log level on stderr', undefined)
    .addHelpText('after', '\nExamples:\n  metalfleet demo\n  metalfleet demo --hosts 10000 --latency 0 --limit 0 --json\n  metalfleet demo -f hosts.yaml --persist status.json\n')
    .action(async (flags: DemoFlags) => {
      const env = readEnv();
      const mode = flags.progress === false || flags.json ? 'quiet' : process.stdout.isTTY ? 'tty' : 'lines';
      // On a terminal the panel shows recent problems; log lines would tear it apart.
      const log = createLogger(flags.logLevel ?? env.METALFLEET_LOG_LEVEL ?? (mode === 'tty' ? 'silent' : 'warn'), { node: 'demo' });
      const store = createMemoryStore(flags.persist ? { persistPath: flags.persist } : {});
      if (flags.persist) await store.load();
      const inputs = flags.file ? await readAll(flags.file) : [];
      const results = flags.file ? inputs.map(([text, file]) => store.applyManifests(text, file)) : [store.apply(generateFleet(flags.hosts), '(generated)')];
      const issues = results.flatMap((r) => r.issues);
      if (issues.length > 0) throw new CliError(`invalid input, the demo did not start:\n${issues.map(formatApplyIssue).join('\n')}`, 1);
      for (const w of results.flatMap((r) => r.warnings)) process.stderr.write(`warning: ${w}\n`);
      const limit = flags.limit ?? env.PROVISIONING_LIMIT;
      // The fixture answers "still working" once per deployment so the slots are visibly busy.
      const provisioner = createFixtureProvisioner({ latencyMs: flags.latency, provisionPasses: flags.latency > 0 ? 2 : 1, pollMs: flags.latency });
      const summary = await runDemo({
        store, provisioner, log, mode, out: process.stdout, timeoutMs: flags.timeout * 1000,
        node: nodeConfig({ name: 'demo', env, defaultLimit: limit === 0 ? Number.POSITIVE_INFINITY : limit }),
      });
      await store.close();
      if (flags.json) process.stdout.write(`${JSON.stringify({ ...summary, capacity: summary.capacity?.totals ?? null })}\n`);
      else {
        process.stdout.write(`${summary.reached}/${summary.hosts} hosts reached their target in ${summary.seconds.toFixed(1)}s (${summary.hostsPerSecond.toFixed(0)} hosts/s)\n`);
        for (const n of summary.notReached.slice(0, 20)) process.stdout.write(`  not reached: ${n.host}: expected ${n.expected}, is ${n.actual}\n`);
      }
      if (!summary.ok) process.exitCode = 1;
    });
}

async function readAll(files: string[]): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const file of files) {
    try {
      out.push([await readFile(file, 'utf8'), file]);
    } catch (err) {
      throw new CliError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 1);
    }
  }
  return out;
}
