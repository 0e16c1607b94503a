import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { kindOf } from '../../api/manifest.ts';
import { RemoteError, subjects } from '../../bus/index.ts';
import { deleteThroughNode } from '../../cluster/commands/index.ts';
import { CliError } from '../cli-error.ts';
import { terminalText } from '../terminal-text.ts';
import { addNatsFlags, addSigningKeyFlag, type NatsFlagValues } from '../nats-options.ts';
import { NODE_DEADLINE_MS, nodeRequestError, readManifestFiles, withNodeRequests, type Output } from './apply.ts';

// `metalfleet delete host NS/NAME [...]` and `metalfleet delete -f FILE`, through a node
// (`<cluster>.store.delete`, signed with --signing-key): as `kubectl delete`, a
// host with finalizers is marked for deletion ('terminating') and goes once its controller has
// cleaned up (deprovisioned, deregistered); one without goes at once. Each host is tried; the exit
// code is 1 if any of them failed.

const HOST_TYPES = new Set(['host', 'hosts', 'bmh', 'baremetalhost', 'baremetalhosts']);

function parseKey(arg: string): string {
  const parts = arg.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    throw new CliError(`${JSON.stringify(arg)} is not a host: give it as NAMESPACE/NAME (e.g. metal3/worker-0)`);
  }
  return arg;
}

/** The host keys named in the files; Secrets and other kinds are noted and left alone. */
async function keysFromFiles(files: readonly string[], io: Output): Promise<string[] | null> {
  const docs = await readManifestFiles(files, io);
  if (docs === null) return null;
  const keys: string[] = [];
  let broken = false;
  for (const doc of docs) {
    if (doc.yamlError !== undefined) {
      io.err(`error: ${doc.file}:${doc.line}: document ${doc.index + 1}: ${doc.yamlError}`);
      broken = true;
      continue;
    }
    const label = `${doc.kind ?? 'object'}/${doc.name ?? `(unnamed, ${doc.file}:${doc.line})`}`;
    const kind = kindOf(doc);
    if (kind === 'BareMetalHost' && doc.name) {
      const key = `${doc.namespace}/${doc.name}`;
      if (!keys.includes(key)) keys.push(key);
    } else if (kind === 'Secret') {
      io.err(`note: ${label}: skipped (Secrets are not in NATS: each node reads its own from --secrets files)`);
    } else {
      io.err(`note: ${label}: skipped (kind not managed by metalfleet)`);
    }
  }
  // A file that did not parse may name hosts we cannot see: delete none rather than some.
  if (broken) {
    io.err('nothing was deleted');
    return null;
  }
  return keys;
}

export async function runDelete(keys: readonly string[], flags: NatsFlagValues & { signingKey?: string }, io: Output): Promise<boolean> {
  if (keys.length === 0) {
    io.err('no BareMetalHosts named: nothing to delete');
    return true;
  }
  // Only nodes write the stores: each host is one request to whichever node answers.
  return withNodeRequests(flags, 'metalfleet-delete', async (transport, signingKey) => {
    let ok = true;
    for (const key of keys) {
      try {
        const reply = await deleteThroughNode(transport, key, { signingKey, deadlineMs: NODE_DEADLINE_MS });
        if (reply.outcome === 'deleted') io.out(`baremetalhost ${key} deleted`);
        else io.out(`baremetalhost ${key} terminating (finalizers: ${reply.finalizers.join(', ')})`);
      } catch (error) {
        ok = false;
        if (error instanceof RemoteError && error.kind === 'notFound') io.err(`error: baremetalhost ${key} not found`);
        else io.err(`error: baremetalhost ${key}: ${nodeRequestError(error, subjects().storeDelete, signingKey)}`);
      }
    }
    return ok;
  });
}

export function register(program: Command): void {
  addSigningKeyFlag(addNatsFlags(
    program
      .command('delete')
      .description(descriptionOf('delete'))
      .argument('[type]', 'host (also: hosts, bmh, baremetalhost)')
      .argument('[names...]', 'hosts as NAMESPACE/NAME')
      .option('-f, --filename <file>', 'delete the BareMetalHosts these manifests name (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[]),
  )).action(async (type: string | undefined, names: string[], opts: NatsFlagValues & { filename: string[]; signingKey?: string }) => {
    const io: Output = {
      // Lines carry names and messages from the manifests: shown escaped (terminal-text.ts).
      out: (line) => process.stdout.write(`${terminalText(line)}\n`),
      err: (line) => process.stderr.write(`${terminalText(line)}\n`),
    };
    let keys: string[] | null;
    if (opts.filename.length > 0) {
      if (type !== undefined) throw new CliError('give hosts either with -f FILE or as "host NAMESPACE/NAME", not both');
      keys = await keysFromFiles(opts.filename, io);
    } else {
      if (type === undefined) throw new CliError('nothing to delete: give "host NAMESPACE/NAME..." or -f FILE');
      if (!HOST_TYPES.has(type.toLowerCase())) throw new CliError(`unknown type ${JSON.stringify(type)}: metalfleet deletes hosts ("delete host NAMESPACE/NAME")`);
      if (names.length === 0) throw new CliError('no host given: "delete host NAMESPACE/NAME..."');
      keys = names.map(parseKey);
    }
    if (keys === null || !(await runDelete(keys, opts, io))) process.exitCode = 1;
  });
}
