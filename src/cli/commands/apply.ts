import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { readManifests, type ManifestDocument } from '../../api/manifest.ts';
import { formatApplyIssue } from '../../adapters/store/index.ts';
import { openNatsStoreOn, secretDocumentIssues, type NatsStore } from '../../adapters/store/nats-store.ts';
import { connectNats } from '../../bus/nats-transport.ts';
import { openKvObjectStoreOn, storedKindOf, type KvObjectStore } from '../../adapters/store/kv-object-store.ts';
import { validateMaasCluster, validateMaasMachine } from '../../api/index.ts';
import type { Transport } from '../../ports/index.ts';
import { CliError } from '../cli-error.ts';
import { terminalText } from '../terminal-text.ts';
import { addNatsFlags, natsOptionsFrom, type NatsFlagValues } from '../nats-options.ts';
import { runValidate } from './validate.ts';

// `metalfleet apply -f FILE [-f FILE...]`: BareMetalHosts into the cluster's NATS store. Every file
// is checked first with the rules of `metalfleet validate` (its error lines, on stderr), without
// touching NATS; then the store checks them again against the stored versions (update rules) and
// writes them. One line per host on stdout, as kubectl prints them. Secrets are refused: each node
// reads its own with --secrets, so credentials never travel through NATS.

export type Output = { out: (line: string) => void; err: (line: string) => void };

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

/** The documents of every file; unreadable files are reported and make the result null. */
export async function readManifestFiles(files: readonly string[], io: Output): Promise<ManifestDocument[] | null> {
  const docs: ManifestDocument[] = [];
  let failed = false;
  for (const file of files) {
    try {
      docs.push(...readManifests(await readFile(file, 'utf8'), file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      io.err(`error: ${file}: cannot read: ${FS_REASONS[code] ?? (code || 'unknown error')}`);
      failed = true;
    }
  }
  return failed ? null : docs;
}

/** Connects with the NATS flags and opens the host store; `use` runs, then both are closed. */
export async function withClusterStore<T>(flags: NatsFlagValues, client: string, use: (store: NatsStore, objects: KvObjectStore) => Promise<T>): Promise<T> {
  const options = await natsOptionsFrom(flags, process.env, client);
  let transport: Transport;
  try {
    // A command gives up rather than waiting forever for a server that is not there.
    transport = await connectNats({ ...options, maxReconnectAttempts: 3, reconnectTimeWaitMs: 1_000, timeoutMs: 10_000 });
  } catch (error) {
    throw new CliError(`NATS: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const store = await openNatsStoreOn(transport);
    const objects = await openKvObjectStoreOn(transport, { validators: { MaasMachine: validateMaasMachine, MaasCluster: validateMaasCluster } });
    try {
      return await use(store, objects);
    } finally {
      await objects.close();
      await store.close();
    }
  } finally {
    await transport.close();
  }
}

const VERBS = { created: 'created', updated: 'configured', unchanged: 'unchanged' } as const;

export async function runApply(files: readonly string[], flags: NatsFlagValues, io: Output): Promise<boolean> {
  if (files.length === 0) throw new CliError('no manifests given: pass -f FILE (repeatable)');
  // The rules of `metalfleet validate`, with its error lines; its notes and summary stay out.
  const checked = await runValidate(files, [], {
    out: (line) => io.err(line),
    err: (line) => {
      if (line.startsWith('error:')) io.err(line);
    },
  });
  if (checked.invalid > 0 || checked.unreadable > 0) {
    io.err(`nothing was applied: ${checked.invalid} invalid object${checked.invalid === 1 ? '' : 's'}, ${checked.unreadable} unreadable`);
    return false;
  }
  const docs = await readManifestFiles(files, io);
  if (docs === null) return false;
  const secrets = secretDocumentIssues(docs);
  if (secrets.length > 0) {
    for (const issue of secrets) io.err(`error: ${formatApplyIssue(issue)}`);
    io.err('nothing was applied');
    return false;
  }
  // MaasMachines, MaasClusters and the Cluster API objects they read go to the object store.
  const objectDocs = docs.filter((d) => d.yamlError === undefined && storedKindOf(d.object) !== null);
  const hostDocs = docs.filter((d) => !objectDocs.includes(d));
  return withClusterStore(flags, 'metalfleet-apply', async (store, objects) => {
    const objectIssues = objects.check(objectDocs.map((d) => d.object));
    if (objectIssues.length > 0) {
      for (const i of objectIssues) {
        const doc = objectDocs[i.index] as ManifestDocument;
        io.err(`error: ${formatApplyIssue({ file: doc.file, index: doc.index, ...(doc.line !== undefined ? { line: doc.line } : {}), ...(i.kind ? { kind: i.kind } : {}), ...(i.key ? { key: i.key } : {}), path: i.path, message: i.message })}`);
      }
      io.err('nothing was applied');
      return false;
    }
    const result = await store.applyDocuments(hostDocs);
    if (!result.ok) {
      for (const issue of result.issues) io.err(`error: ${formatApplyIssue(issue)}`);
      io.err('nothing was applied');
      return false;
    }
    for (const { key, outcome } of result.hosts) io.out(`baremetalhost ${key} ${VERBS[outcome]}`);
    if (objectDocs.length > 0) {
      await objects.apply(objectDocs.map((d) => d.object));
      for (const d of objectDocs) {
        const o = d.object as { kind: string; metadata: { name: string; namespace?: string } };
        io.out(`${o.kind.toLowerCase()} ${o.metadata.namespace ?? 'default'}/${o.metadata.name} applied`);
      }
    }
    for (const s of result.skipped) io.err(`note: ${s.kind}${s.key ? ` ${s.key}` : ''}: skipped (kind not managed by metalfleet)`);
    for (const w of result.warnings) io.err(`warning: ${w}`);
    return true;
  });
}

export function register(program: Command): void {
  addNatsFlags(
    program
      .command('apply')
      .description(descriptionOf('apply'))
      .requiredOption('-f, --filename <file>', 'YAML manifests, multi-document allowed (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[]),
  ).action(async (opts: NatsFlagValues & { filename: string[] }) => {
    const ok = await runApply(opts.filename, opts, {
      // Lines carry names and messages from the manifests: shown escaped (terminal-text.ts).
      out: (line) => process.stdout.write(`${terminalText(line)}\n`),
      err: (line) => process.stderr.write(`${terminalText(line)}\n`),
    });
    if (!ok) process.exitCode = 1;
  });
}
