import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { documentName, kindOf, readManifests, whereOf, type ManifestDocument } from '../../api/manifest.ts';
import { noObjectsIn } from '../../api/manifest-file.ts';
import { manifestInputs, readManifestInput } from './manifest-inputs.ts';
import { issueInDocuments, manifestError, type DocumentIssue } from '../../api/manifest-where.ts';
import { pendingGenerateName } from '../../api/generate-name.ts';
import { formatApplyIssue } from '../../adapters/store/index.ts';
import { secretDocumentIssues } from '../../adapters/store/nats-store.ts';
import { storedKindOf } from '../../adapters/store/kv-layouts.ts';
import { RemoteError, subjects } from '../../bus/index.ts';
import { applyThroughNode, storeRequestLimit, storeRequestSize, type StoreApplyInput, type StoreApplyReply } from '../../cluster/commands/index.ts';
import { BusError, type Transport } from '../../ports/index.ts';
import type { SigningKey } from '../../security/index.ts';
import { CliError } from '../cli-error.ts';
import { terminalText } from '../terminal-text.ts';
import { addNatsFlags, addSigningKeyFlag, connectClient, signingKeyFrom, type NatsFlagValues } from '../nats-options.ts';
import { runValidate } from './validate.ts';
import { usageErrorsExitTwo } from '../introspect/index.ts';

// `metalfleet apply -f FILE [-f FILE...]`: BareMetalHosts into the cluster's NATS store. Every file
// is checked first with the rules of `metalfleet validate` (its error lines, on stderr), without
// touching NATS; then each object goes to a node (`<cluster>.store.apply`, signed with
// --signing-key), whose store checks it again against the stored version (update rules) and
// writes it: only nodes write the stores. One line per host on stdout, as kubectl prints them.
// Secrets are refused: each node reads its own with --secrets, so credentials never travel through NATS.

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
  for (const { file, error } of await manifestInputs(files)) {
    if (error !== undefined) {
      io.err(`error: ${file}: ${error}`);
      failed = true;
      continue;
    }
    // Refused by its size before it is read (src/api/limits.ts), like validate does.
    const text = await readManifestInput(file);
    if (!text.ok) {
      io.err(`error: ${file}: ${text.reason}`);
      failed = true;
      continue;
    }
    try {
      docs.push(...readManifests(text.text, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      io.err(`error: ${file}: cannot read: ${FS_REASONS[code] ?? (code || 'unknown error')}`);
      failed = true;
    }
  }
  return failed ? null : docs;
}

// How long a request waits for a node (retries included): long enough for one to start or a
// store to come back, short enough that "no node is running" is said soon.
export const NODE_DEADLINE_MS = 10_000;

const VERBS = { created: 'created', updated: 'configured', unchanged: 'unchanged' } as const;

/** Connects with the NATS flags and the signing key (--signing-key, METALFLEET_SIGNING_KEY_FILE); `use` runs, then the connection is closed. */
export async function withNodeRequests<T>(flags: NatsFlagValues & { signingKey?: string }, client: string, use: (transport: Transport, signingKey: SigningKey | undefined) => Promise<T>): Promise<T> {
  const signingKey = await signingKeyFrom(flags, process.env);
  const transport = await connectClient(flags, process.env, client);
  try {
    return await use(transport, signingKey);
  } finally {
    await transport.close();
  }
}

/** A node's refusal or no node at all, as one line a user can act on. */
export function nodeRequestError(error: unknown, subject: string, signingKey: SigningKey | undefined): string {
  if (error instanceof RemoteError) {
    const hint = error.kind === 'unauthorized' && !signingKey ? ' (no --signing-key given, nor METALFLEET_SIGNING_KEY_FILE)' : '';
    return `${error.kind}: ${error.message}${hint}`;
  }
  if (error instanceof BusError && (error.kind === 'noResponders' || error.kind === 'timeout')) {
    return `no node answered on ${subject}: is a metalfleet node (NATS store) running? (${error.message})`;
  }
  if (error instanceof BusError) return error.message;
  throw error;
}

// The later of two documents for one host wins, as when the store took every document in one call.
function latestPerHost(docs: readonly ManifestDocument[]): { kept: ManifestDocument[]; warnings: string[] } {
  const plan = new Map<string, ManifestDocument>();
  const others: ManifestDocument[] = [];
  const warnings: string[] = [];
  for (const doc of docs) {
    if (doc.yamlError !== undefined || kindOf(doc) !== 'BareMetalHost' || !doc.name) {
      others.push(doc);
      continue;
    }
    const key = `${doc.namespace}/${doc.name}`;
    const earlier = plan.get(key);
    if (earlier) {
      warnings.push(`BareMetalHost ${key} is given twice (${earlier.file} ${documentName(earlier)} and ${doc.file} ${documentName(doc)}); the later one wins`);
      plan.delete(key);
    }
    plan.set(key, doc);
  }
  const kept = new Set([...plan.values(), ...others]);
  return { kept: docs.filter((d) => kept.has(d)), warnings };
}

function request(doc: ManifestDocument, phase: 'check' | 'apply'): StoreApplyInput {
  return { phase, document: { ...whereOf(doc), object: doc.object } };
}

export async function runApply(files: readonly string[], flags: NatsFlagValues & { signingKey?: string }, io: Output): Promise<boolean> {
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
  // As kubectl's "no objects passed to apply": an empty file is a wrong file, and applying
  // nothing would have said so only by printing nothing.
  if (docs.length === 0) {
    io.err(`error: ${noObjectsIn(files)}; nothing was applied`);
    return false;
  }
  // A store's or node's issue, at its field's line and column as validate names it.
  const said = (issue: DocumentIssue & Parameters<typeof formatApplyIssue>[0]): string => issueInDocuments(issue, docs) ?? formatApplyIssue(issue);
  const secrets = secretDocumentIssues(docs);
  if (secrets.length > 0) {
    for (const issue of secrets) io.err(`error: ${said(issue)}`);
    io.err('nothing was applied');
    return false;
  }
  // MaasMachines, MaasClusters and the Cluster API objects they read go to the object store.
  const objectDocs = docs.filter((d) => d.yamlError === undefined && storedKindOf(d.object) !== null);
  const { kept: hostDocs, warnings } = latestPerHost(docs.filter((d) => !objectDocs.includes(d)));
  // kubectl apply refuses these; we create, as kubectl create does, and say so every time.
  for (const d of docs) {
    const prefix = d.yamlError === undefined ? pendingGenerateName(d.object) : null;
    if (prefix !== null) warnings.push(`${d.file} ${documentName(d)}: ${d.kind ?? 'object'} named only by generateName ${JSON.stringify(prefix)}: every apply creates a new one (as kubectl create); set metadata.name to update it later`);
  }
  // Only nodes write the stores: each object is one request to whichever node answers.
  return withNodeRequests(flags, 'metalfleet-apply', async (transport, signingKey) => {
    const subject = subjects().storeApply;
    const limit = storeRequestLimit(transport);
    const tooLarge = [...hostDocs, ...objectDocs]
      .map((d) => ({ d, size: storeRequestSize(request(d, 'apply'), signingKey) }))
      .filter(({ size }) => size > limit);
    if (tooLarge.length > 0) {
      for (const { d, size } of tooLarge) {
        io.err(`error: ${manifestError(d, '', `is ${size} bytes as a request, over the ${limit} bytes one NATS message may carry here (server max_payload ${transport.maxPayload}): make the object smaller (e.g. move user data to a Secret) or raise max_payload`)}`);
      }
      io.err('nothing was applied');
      return false;
    }
    const send = (d: ManifestDocument, phase: 'check' | 'apply'): Promise<StoreApplyReply | string> =>
      applyThroughNode(transport, request(d, phase), { signingKey, deadlineMs: NODE_DEADLINE_MS }).catch((error: unknown) => nodeRequestError(error, subject, signingKey));
    // Every object is checked against its stored version first, so one the update rules refuse
    // stops the apply before anything is written (the store checks again as it writes).
    for (const d of [...hostDocs, ...objectDocs]) {
      const reply = await send(d, 'check');
      if (typeof reply === 'string' || reply.issues.length > 0) {
        if (typeof reply === 'string') io.err(`error: ${reply}`);
        else for (const issue of reply.issues) io.err(`error: ${said(issue)}`);
        io.err('nothing was applied');
        return false;
      }
    }
    const done: string[] = [];
    const notes: string[] = [];
    const stop = (lines: readonly string[]): false => {
      for (const line of lines) io.err(`error: ${line}`);
      io.err(done.length === 0 ? 'nothing was applied' : `stopped here; applied before: ${done.join(', ')}`);
      return false;
    };
    const hostLines: string[] = [];
    for (const d of hostDocs) {
      const reply = await send(d, 'apply');
      if (typeof reply === 'string') return stop([reply]);
      if (reply.issues.length > 0) return stop(reply.issues.map(said));
      for (const { key, outcome } of reply.hosts) {
        hostLines.push(`baremetalhost ${key} ${VERBS[outcome]}`);
        done.push(key);
      }
      for (const s of reply.skipped) notes.push(`note: ${s.kind}${s.key ? ` ${s.key}` : ''}: skipped (kind not managed by metalfleet)`);
      warnings.push(...reply.warnings);
    }
    const objectLines: string[] = [];
    for (const d of objectDocs) {
      const reply = await send(d, 'apply');
      if (typeof reply === 'string') return stop([reply]);
      if (reply.issues.length > 0) return stop(reply.issues.map(said));
      for (const o of reply.objects) {
        objectLines.push(`${o.kind.toLowerCase()} ${o.key} applied`);
        done.push(o.key);
      }
    }
    for (const line of [...hostLines, ...objectLines]) io.out(line);
    for (const line of notes) io.err(line);
    for (const w of warnings) io.err(`warning: ${w}`);
    return true;
  });
}

export function register(program: Command): void {
  usageErrorsExitTwo(addSigningKeyFlag(addNatsFlags(
    program
      .command('apply')
      .description(descriptionOf('apply'))
      .requiredOption('-f, --filename <file>', 'YAML manifests, multi-document allowed (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[]),
  ))).action(async (opts: NatsFlagValues & { filename: string[]; signingKey?: string }) => {
    const ok = await runApply(opts.filename, opts, {
      // Lines carry names and messages from the manifests: shown escaped (terminal-text.ts).
      out: (line) => process.stdout.write(`${terminalText(line)}\n`),
      err: (line) => process.stderr.write(`${terminalText(line)}\n`),
    });
    if (!ok) process.exitCode = 1;
  });
}
