import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { readManifests } from '../../api/manifest.ts';
import type { Secret } from '../../api/secret.ts';
import { StoreError } from '../../ports/index.ts';
import { formatApplyIssue, validateDocuments, type SourceDocument } from './validate.ts';

/**
 * Where a node finds the Secrets its hosts name. Local to each node: the cluster store keeps
 * Secrets out of NATS, so credentials never travel in (or rest as) KV payloads.
 */
export interface SecretSource {
  get(namespace: string, name: string): Promise<Secret | undefined>;
}

export interface SecretFiles extends SecretSource {
  /** `namespace/name` of every Secret loaded, in load order. */
  readonly keys: readonly string[];
  /** The manifest files read (directories expanded). */
  readonly files: readonly string[];
  /** A Secret given twice (the later one wins). Names only, never values. */
  readonly warnings: readonly string[];
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
};

function unreadable(path: string, error: unknown): StoreError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return new StoreError(`cannot read the secrets file ${path}: ${FS_REASONS[code] ?? (code || 'unreadable')}`, false, { cause: error });
}

// A directory gives its *.yaml, *.yml and *.json files, sorted, not its subdirectories (as
// `kubectl apply -f DIR` without -R), so a later file wins a duplicate predictably.
async function manifestFiles(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!info.isDirectory()) return [path];
  let names: string[];
  try {
    names = await readdir(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  return names.filter((n) => MANIFEST_EXTENSIONS.has(extname(n).toLowerCase())).sort().map((n) => join(path, n));
}

/**
 * Reads Kubernetes Secret manifests (files, or directories of them) into a SecretSource, with
 * the memory store's parsing (`data` base64, `stringData` plain). Other kinds in the files are
 * ignored, so the manifests that hold the hosts may be given as they are. Any unreadable file or
 * invalid Secret fails the whole load with a StoreError naming file, document and field.
 */
export async function loadSecretFiles(paths: readonly string[]): Promise<SecretFiles> {
  const files: string[] = [];
  for (const path of paths) files.push(...await manifestFiles(path));
  const docs: SourceDocument[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw unreadable(file, error);
    }
    for (const doc of readManifests(text, file)) {
      // A document that did not parse may have been a Secret: it fails the load rather than
      // leaving a host without its credentials for a reason nobody sees.
      if (doc.yamlError !== undefined || doc.kind === 'Secret') docs.push(doc);
    }
  }
  const { valid, issues } = validateDocuments(docs);
  if (issues.length > 0) {
    throw new StoreError(`invalid Secret manifests (nothing was loaded): ${issues.map(formatApplyIssue).join('; ')}`, false);
  }
  const secrets = new Map<string, Secret>();
  const where = new Map<string, string>();
  const warnings: string[] = [];
  for (const doc of valid) {
    if (doc.type !== 'secret') continue;
    const at = `${doc.source.file} document ${doc.source.index}`;
    const earlier = where.get(doc.key);
    if (earlier !== undefined) warnings.push(`Secret ${doc.key} is given twice (${earlier} and ${at}); the later one wins`);
    where.set(doc.key, at);
    secrets.set(doc.key, doc.secret);
  }
  return {
    keys: [...secrets.keys()],
    files,
    warnings,
    async get(namespace, name) {
      return secrets.get(`${namespace}/${name}`);
    },
  };
}
