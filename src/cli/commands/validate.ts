import type { Command } from 'commander';
import { descriptionOf } from './catalog.ts';
import { documentName, kindOf, manifestDocuments, type ManifestDocument } from '../../api/manifest.ts';
import { secretErrors } from '../../api/manifest-secret.ts';
import { namespaceProblems, placedIn } from '../../api/manifest-namespace.ts';
import { manifestInputs, readManifestInput } from './manifest-inputs.ts';
import { manifestError, yamlErrorLine } from '../../api/manifest-where.ts';
import { validateObject, validatedKindOf } from '../../api/maas/index.ts';
import { misspelledKind, pendingGenerateName, type ValidateOptions } from '../../api/index.ts';
import { misgroupedKind } from '../../api/kind-typo.ts';
import { CliError } from '../cli-error.ts';
import { readEnv } from '../config.ts';
import { terminalText } from '../terminal-text.ts';
import { addPluginFlags, declaredBmcSchemes } from '../provisioners.ts';
import { OldVersions } from './validate-old.ts';
import { usageErrorsExitTwo } from '../usage-errors.ts';

// `metalfleet validate FILE... [--old FILE] [-n NAMESPACE]`: the admission rules of the
// BareMetalHost webhook and of CAPMAAS's MaasCluster, MaasMachine and MaasMachineTemplate, run on
// manifests before they are applied. Errors go to stdout, one per line, so they can be grepped or
// diffed; notes and the summary go to stderr. With -n, objects that name no namespace are checked
// as if applied there (kubectl's -n), and one that names another is an error, as kubectl's; an object named only by generateName is checked as a create
// unless an --old object of the same kind, namespace and generateName pairs with it.

type Output = { out: (line: string) => void; err: (line: string) => void };

// The file's documents, parsed one at a time as they are checked (null when it cannot be read or
// is over the size limit): what a document cost is garbage before the next is parsed.
async function readDocuments(file: string, io: Output): Promise<Iterable<ManifestDocument> | null> {
  const read = await readManifestInput(file);
  if (!read.ok) {
    io.err(`error: ${file}: ${read.reason}`);
    return null;
  }
  return manifestDocuments(read.text, file);
}

function label(doc: ManifestDocument): string {
  const generate = pendingGenerateName(doc.object);
  if (doc.name === undefined && generate !== null) return `${doc.kind ?? 'object'}/(generateName ${JSON.stringify(generate)}, ${doc.file}:${doc.line})`;
  return `${doc.kind ?? 'object'}/${doc.name ?? `(unnamed, ${doc.file}:${doc.line})`}`;
}

/** The object's own metadata.namespace, or null when it names none (a wrong type is the schema's to name). */
function namespaceNamed(object: unknown): string | null {
  const metadata = typeof object === 'object' && object !== null ? (object as { metadata?: unknown }).metadata : undefined;
  const namespace = typeof metadata === 'object' && metadata !== null ? (metadata as { namespace?: unknown }).namespace : undefined;
  return typeof namespace === 'string' && namespace !== '' ? namespace : null;
}

/**
 * kubectl's refusal of `-n NAMESPACE` for an object that names another namespace, or null. The
 * object was checked where it said it goes and passed silently, though apply -n would not take it.
 */
function namespaceRefusal(doc: ManifestDocument, namespace: string | undefined): string | null {
  if (namespace === undefined) return null;
  const own = namespaceNamed(doc.object);
  if (own === null || own === namespace) return null;
  const generate = pendingGenerateName(doc.object);
  const name = doc.name ?? (generate !== null ? `(generateName ${JSON.stringify(generate)})` : '(unnamed)');
  return `${doc.file}:${doc.line}: ${documentName(doc)}: ${doc.kind ?? 'object'} ${own}/${name}: the namespace from the provided object ${JSON.stringify(own)} does not match the namespace ${JSON.stringify(namespace)}. You must pass '--namespace=${own}' to perform this operation.`;
}

const where = (doc: ManifestDocument): string => `${doc.file}:${doc.line} ${documentName(doc)}`;

// apply keeps the later of two documents for one object (and warns for hosts): validate says so
// for every kind, naming both places, so a copy-paste that left two of one name is seen before
// apply. Objects named only by generateName are new ones each, never the same.
function givenTwice(seen: Map<string, ManifestDocument>, doc: ManifestDocument): string | null {
  if (doc.kind === undefined || !doc.name) return null;
  const key = `${doc.kind} ${doc.namespace}/${doc.name}`;
  const earlier = seen.get(key);
  seen.set(key, doc);
  return earlier === undefined ? null : `${key} is given twice (${where(earlier)} and ${where(doc)}); the later one wins`;
}

// unmatched: --old objects no checked object matched (their update rules were not applied).
export type ValidateSummary = { checked: number; invalid: number; unreadable: number; unmatched: number };

/**
 * Checks every document of `files`; with `namespace`, those that name none (in `oldFiles` too) as
 * if applied there.
 */
export async function runValidate(files: readonly string[], oldFiles: readonly string[], io: Output, rules: ValidateOptions = {}, namespace?: string): Promise<ValidateSummary> {
  const summary: ValidateSummary = { checked: 0, invalid: 0, unreadable: 0, unmatched: 0 };
  const place = (doc: ManifestDocument): ManifestDocument => (namespace === undefined ? doc : placedIn(doc, namespace));

  const previous = new OldVersions();
  for await (const read of readableDocuments(oldFiles, io, summary)) {
    const doc = place(read);
    const kind = validatedKindOf(doc);
    if (kind !== null) previous.add(kind, doc);
  }

  const seen = new Map<string, ManifestDocument>();
  for await (const read of readableDocuments(files, io, summary)) {
    const doc = place(read);
    const twice = givenTwice(seen, doc);
    if (twice !== null) io.err(`warning: ${twice}`);
    if (doc.kind === undefined) {
      io.err(`error: ${doc.file}:${doc.line}: ${documentName(doc)}: not a Kubernetes object (no kind)`);
      summary.unreadable++;
      continue;
    }
    const refused = namespaceRefusal(read, namespace);
    if (refused !== null) io.err(`error: ${refused}`);
    const kind = validatedKindOf(doc);
    // A Secret has no admission rules of ours, but the stores' checks: demo -f and --secrets refuse what they find.
    const result = kindOf(doc) === 'Secret' ? { errors: secretErrors(doc.object) } : kind === null ? null : validateObject(doc.object, previous.take(kind, doc), rules);
    if (result === null) {
      const meant = misspelledKind(doc.kind);
      if (meant !== null) {
        // A typo is no other resource: it counts as invalid, so the exit code says so.
        summary.checked++;
        summary.invalid++;
        io.out(manifestError(doc, 'kind', `${doc.kind} is not one metalfleet knows; did you mean ${meant}?`));
        continue;
      }
      // One of ours under a mistyped apiVersion: apply, demo -f and a node refuse it, so validate does.
      const group = misgroupedKind(doc.apiVersion, doc.kind);
      if (group !== null) {
        summary.checked++;
        summary.invalid++;
        io.out(manifestError(doc, 'apiVersion', group));
        continue;
      }
      if (refused !== null) {
        // Not ours to check, but -n refuses it all the same (kubectl would apply none of the files).
        summary.checked++;
        summary.invalid++;
        continue;
      }
      io.err(`note: ${label(doc)}: skipped (kind not managed by metalfleet)`);
      continue;
    }
    summary.checked++;
    // Refused by -n, it is still checked where it says it goes: both are worth fixing at once.
    if (result.errors.length > 0 || refused !== null) summary.invalid++;
    for (const e of result.errors) io.out(manifestError(doc, e.path, e.reason));
  }

  for (const old of previous.unmatched()) {
    summary.unmatched++;
    io.err(`error: ${old.file}:${old.line}: --old ${old.description} matches no object checked (by kind, namespace and name, or generateName); its update rules were not applied`);
  }

  const unreadable = summary.unreadable > 0 ? `, ${summary.unreadable} unreadable` : '';
  const unmatched = summary.unmatched > 0 ? `, ${summary.unmatched} --old unmatched` : '';
  io.err(`${summary.checked} object${summary.checked === 1 ? '' : 's'} checked, ${summary.invalid} invalid${unreadable}${unmatched}`);
  return summary;
}

export function register(program: Command): void {
  const validate = program
    .command('validate')
    .description(descriptionOf('validate'))
    .argument('[files...]', 'YAML manifests, multi-document allowed')
    // As apply and delete take them (and kubectl): `validate -f hosts.yaml` was an unknown option.
    .option('-f, --filename <file>', 'a YAML manifest, as apply and delete take it (repeatable; with or instead of FILE...)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--old <file>', 'stored versions of the objects: apply the update rules to those of the same kind, namespace and name (or generateName); one that matches nothing is an error (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('-n, --namespace <namespace>', 'check objects that name no namespace as if applied in this one (as kubectl -n); one that names another is refused, as kubectl refuses it');
  // Commander's usage errors as one line and exit 2, as every other command: exit 1 means invalid manifests.
  usageErrorsExitTwo(addPluginFlags(validate))
    .action(async (args: string[], opts: { old: string[]; filename: string[]; namespace?: string; plugin?: string[]; pluginDir?: string }) => {
      const files = [...args, ...opts.filename];
      if (files.length === 0) throw new CliError("validate: missing required argument 'files': give the manifests to check, as FILE... or -f FILE", 1);
      const problems = opts.namespace === undefined ? [] : namespaceProblems(opts.namespace);
      if (problems.length > 0) throw new CliError(`--namespace ${JSON.stringify(opts.namespace)}: ${problems.join('; ')}`);
      // Only the plugin folder matters here: a bad PROVISIONING_LIMIT is the node's problem, and
      // refused every validate run that happened to have it set.
      const env = readEnv(pluginDirOnly(process.env));
      // Lines carry file names, object names and messages from the manifests: shown escaped.
      const err = (line: string): void => void process.stderr.write(`${terminalText(line)}\n`);
      const schemes = await declaredBmcSchemes({ flags: opts, ...(env.METALFLEET_PLUGIN_DIR ? { pluginDir: env.METALFLEET_PLUGIN_DIR } : {}), cwd: process.cwd(), warn: err });
      const summary = await runValidate(files, opts.old, { out: (line) => process.stdout.write(`${terminalText(line)}\n`), err }, { pluginBmcSchemes: new Set(schemes) }, opts.namespace);
      if (summary.invalid > 0 || summary.unreadable > 0 || summary.unmatched > 0) process.exitCode = 1;
    });
}

// Every document of the files that parsed as YAML, in order; unreadable files and YAML errors
// are reported and counted as they come, for inputs and --old files alike.
async function* readableDocuments(files: readonly string[], io: Output, summary: ValidateSummary): AsyncGenerator<ManifestDocument> {
  for (const input of await manifestInputs(files)) {
    if (input.error !== undefined) {
      io.err(`error: ${input.file}: ${input.error}`);
      summary.unreadable++;
      continue;
    }
    const docs = await readDocuments(input.file, io);
    if (docs === null) {
      summary.unreadable++;
      continue;
    }
    for (const doc of docs) {
      if (doc.yamlError === undefined) {
        yield doc;
        continue;
      }
      io.err(`error: ${yamlErrorLine({ ...doc, yamlError: doc.yamlError })}`);
      summary.unreadable++;
    }
  }
}

function pluginDirOnly(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.METALFLEET_PLUGIN_DIR === undefined ? {} : { METALFLEET_PLUGIN_DIR: env.METALFLEET_PLUGIN_DIR };
}
