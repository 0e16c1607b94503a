import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { documentName, kindOf, type ManifestDocument } from '../../api/manifest.ts';
import { noObjectsIn } from '../../api/manifest-file.ts';
import { storedKindOf } from '../../adapters/store/kv-layouts.ts';
import { RemoteError, subjects } from '../../bus/index.ts';
import { HostKey } from '../../bus/messages/index.ts';
import { deleteThroughNode, StoreDeleteKind } from '../../cluster/commands/index.ts';
import { COMPANION_KINDS, KINDS, kindCalled, knownKindNames } from '../../machines/kinds.ts';
import { didYouMean } from '../did-you-mean.ts';
import { CliError } from '../cli-error.ts';
import { terminalText } from '../terminal-text.ts';
import { addNatsFlags, addSigningKeyFlag, type NatsFlagValues } from '../nats-options.ts';
import { usageErrorsExitTwo } from '../introspect/index.ts';
import { NODE_DEADLINE_MS, nodeRequestError, readManifestFiles, withNodeRequests, type Output } from './apply.ts';

// `metalfleet delete TYPE NS/NAME [...]` and `metalfleet delete -f FILE`, through a node
// (`<cluster>.store.delete`, signed with --signing-key): as `kubectl delete`, an object with
// finalizers is marked for deletion ('terminating') and goes once its controller has cleaned up
// (deprovisioned, released, deregistered); one without goes at once. A file's objects are every
// kind `apply -f` takes (BareMetalHosts, MaasMachines, MaasClusters and the Cluster API objects),
// told apart exactly as apply tells them. Each object is tried; the exit code is 1 if any failed.

type Target = { readonly kind: StoreDeleteKind; readonly key: string };

// `host` and `hosts` are what this command took before it took other kinds. Cluster API's Machines
// and Clusters are no kinds of ours, but apply writes them (delete -f deletes them): by type too.
const OTHER_TYPES: Readonly<Record<string, StoreDeleteKind>> = { host: 'BareMetalHost', hosts: 'BareMetalHost', machine: 'Machine', machines: 'Machine', cluster: 'Cluster', clusters: 'Cluster' };

/** Every word a TYPE may be, for a suggestion. */
function typeWords(): string[] {
  const kinds = [...KINDS, ...COMPANION_KINDS].filter((k) => StoreDeleteKind.safeParse(k.kind).success);
  return [...Object.keys(OTHER_TYPES), ...kinds.flatMap((k) => [k.kind, k.resources[0].plural, ...(k.resources[0].shortNames ?? [])])];
}

/** The kind a TYPE argument names, or a CliError listing what it may name. */
function typeKind(type: string): StoreDeleteKind {
  const kind = Object.hasOwn(OTHER_TYPES, type.toLowerCase()) ? OTHER_TYPES[type.toLowerCase()] : kindCalled(type)?.kind;
  const deletable = StoreDeleteKind.safeParse(kind);
  if (!deletable.success) {
    throw new CliError(`unknown type ${JSON.stringify(type)}: metalfleet deletes host (also ${knownKindNames()}) and Cluster API's machine and cluster as "delete TYPE NAMESPACE/NAME", or what a file names with -f FILE${didYouMean(type, typeWords())}`, 2);
  }
  return deletable.data;
}

function parseKey(arg: string, kind: StoreDeleteKind): string {
  const parts = arg.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    throw new CliError(`${JSON.stringify(arg)} is not a ${kind}: give it as NAMESPACE/NAME (e.g. metal3/worker-0)`);
  }
  return arg;
}

/** The kind apply would write the document as, or null for what apply skips or refuses. */
function deletableKind(doc: ManifestDocument): StoreDeleteKind | null {
  if (kindOf(doc) === 'BareMetalHost') return 'BareMetalHost';
  return storedKindOf(doc.object);
}

// One document's target; a string says why the document cannot name one (the file is then refused).
function targetOf(doc: ManifestDocument, io: Output): Target | string | null {
  if (doc.yamlError !== undefined) return doc.yamlError;
  const kind = deletableKind(doc);
  if (kind === null) {
    const label = `${doc.kind ?? 'object'}/${doc.name ?? `(unnamed, ${doc.file}:${doc.line})`}`;
    if (kindOf(doc) === 'Secret') io.err(`note: ${label}: skipped (Secrets are not in NATS: each node reads its own from --secrets files)`);
    else io.err(`note: ${label}: skipped (kind not managed by metalfleet)`);
    return null;
  }
  if (!doc.name) return `${kind} has no metadata.name; only a named object can be deleted (one named by generateName: delete it by the name it was given)`;
  const key = HostKey.safeParse(`${doc.namespace}/${doc.name}`);
  if (!key.success) return `${kind} ${doc.namespace}/${doc.name}: ${key.error.issues.map((i) => i.message).join('; ')}`;
  return { kind, key: key.data };
}

/** The objects named in the files, each once; null (nothing deleted) when a document is bad. */
async function targetsFromFiles(files: readonly string[], io: Output): Promise<Target[] | null> {
  const docs = await readManifestFiles(files, io);
  if (docs === null) return null;
  // As kubectl's "no objects passed to delete" and our apply: a file with nothing in it is a wrong file.
  if (docs.length === 0) {
    io.err(`error: ${noObjectsIn(files)}; nothing was deleted`);
    return null;
  }
  const targets: Target[] = [];
  let broken = false;
  for (const doc of docs) {
    const target = targetOf(doc, io);
    if (typeof target === 'string') {
      io.err(`error: ${doc.file}:${doc.line}: ${documentName(doc)}: ${target}`);
      broken = true;
    } else if (target !== null && !targets.some((t) => t.kind === target.kind && t.key === target.key)) {
      targets.push(target);
    }
  }
  // A document we cannot read may name objects we cannot see: delete none rather than some.
  if (broken) {
    io.err('nothing was deleted');
    return null;
  }
  return targets;
}

export async function runDelete(targets: readonly Target[], flags: NatsFlagValues & { signingKey?: string }, io: Output): Promise<boolean> {
  if (targets.length === 0) {
    io.err('no BareMetalHosts, MaasMachines, MaasClusters or Cluster API objects named: nothing to delete');
    return true;
  }
  // Only nodes write the stores: each object is one request to whichever node answers.
  return withNodeRequests(flags, 'metalfleet-delete', async (transport, signingKey) => {
    let ok = true;
    for (const { kind, key } of targets) {
      const what = `${kind.toLowerCase()} ${key}`;
      try {
        const reply = await deleteThroughNode(transport, { host: key, kind }, { signingKey, deadlineMs: NODE_DEADLINE_MS });
        if (reply.outcome === 'deleted') io.out(`${what} deleted`);
        else io.out(`${what} terminating (finalizers: ${reply.finalizers.join(', ')})`);
      } catch (error) {
        ok = false;
        if (error instanceof RemoteError && error.kind === 'notFound') io.err(`error: ${what} not found`);
        else io.err(`error: ${what}: ${nodeRequestError(error, subjects().storeDelete, signingKey)}`);
      }
    }
    return ok;
  });
}

export function register(program: Command): void {
  usageErrorsExitTwo(addSigningKeyFlag(addNatsFlags(
    program
      .command('delete')
      .description(descriptionOf('delete'))
      .argument('[type]', 'host (also: hosts, bmh, baremetalhost), maasmachine, maascluster, machine or cluster (Cluster API), or a BareMetalHost companion kind (hardwaredata, hfs...)')
      .argument('[names...]', 'objects of that type as NAMESPACE/NAME')
      .option('-f, --filename <file>', 'delete the objects these manifests name, every kind apply takes (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[]),
  ))).action(async (type: string | undefined, names: string[], opts: NatsFlagValues & { filename: string[]; signingKey?: string }) => {
    const io: Output = {
      // Lines carry names and messages from the manifests: shown escaped (terminal-text.ts).
      out: (line) => process.stdout.write(`${terminalText(line)}\n`),
      err: (line) => process.stderr.write(`${terminalText(line)}\n`),
    };
    let targets: Target[] | null;
    if (opts.filename.length > 0) {
      if (type !== undefined) throw new CliError('give objects either with -f FILE or as "TYPE NAMESPACE/NAME", not both');
      targets = await targetsFromFiles(opts.filename, io);
    } else {
      if (type === undefined) throw new CliError('nothing to delete: give "host NAMESPACE/NAME..." (or maasmachine, maascluster) or -f FILE');
      const kind = typeKind(type);
      if (names.length === 0) throw new CliError(`no ${type} given: "delete ${type} NAMESPACE/NAME..."`);
      targets = names.map((name) => ({ kind, key: parseKey(name, kind) }));
    }
    if (targets === null || !(await runDelete(targets, opts, io))) process.exitCode = 1;
  });
}
