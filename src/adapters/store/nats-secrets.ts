import { createHash } from 'node:crypto';
import { watch as watchPath, type BigIntStats, type FSWatcher } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { documentName, readManifests } from '../../api/manifest.ts';
import { decodeManifestBytes } from '../../api/manifest-file.ts';
import type { Secret } from '../../api/secret.ts';
import { StoreError } from '../../ports/index.ts';
import { SecretChanges, secretChangeOf } from './secret-changes.ts';
import type { SecretEvent, SecretWatchOptions } from './secret-changes.ts';
import { freshSecretVersion, sameSecretContent, withVersion } from './secret-version.ts';
import { formatApplyIssue, validateDocuments, type ApplyIssue, type SourceDocument } from './validate.ts';
import { errorMessage } from '../../api/index.ts';

/**
 * Where a node finds the Secrets its hosts name. Local to each node: the cluster store keeps
 * Secrets out of NATS, so credentials never travel in (or rest as) KV payloads.
 */
export interface SecretSource {
  get(namespace: string, name: string): Promise<Secret | undefined>;
  /**
   * Tells `onEvent` each time a Secret appears, changes or goes away, until the returned function
   * is called. Optional: a source without it is read at each use and announces nothing.
   */
  watch?(onEvent: (event: SecretEvent) => void, options?: SecretWatchOptions): () => void;
}

export interface SecretFiles extends SecretSource {
  /** `namespace/name` of every Secret loaded, in load order. */
  readonly keys: readonly string[];
  /** The manifest files read (directories expanded). */
  readonly files: readonly string[];
  /** A Secret given twice (the later one wins). Names only, never values. */
  readonly warnings: readonly string[];
  watch(onEvent: (event: SecretEvent) => void, options?: SecretWatchOptions): () => void;
}

export interface SecretFilesOptions {
  /** How long after the last file event a re-read starts (editors write a file in steps). Default 100 ms. */
  readonly debounceMs?: number;
  /** The clock (ms since the epoch) a file's times are compared with; see `readWithVersion`. */
  readonly now?: () => number;
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
 * invalid Secret fails the first load with a StoreError naming file, document and field.
 *
 * While anyone watches, the paths are watched too (a directory for files added, changed or
 * removed; a file through its directory, so an editor's write-and-rename is seen): after a quiet
 * `debounceMs` everything is read again and each Secret that appeared, changed or went away is
 * announced. A file that no longer parses, or cannot be read, keeps the Secrets last read from it
 * and is reported to the watchers (file, document, field; never a value).
 *
 * Each Secret's `metadata.resourceVersion` (any in the manifest is replaced) names the state of
 * the file it was read from — a digest of the file's device, inode, size, mtime and ctime, never
 * of its text — taken when the Secret was first read or last changed. It stays while re-reads
 * find the same content (type, data, stringData), whatever else happens to the file; content that
 * differs gets the file's new state, so a restart finds the same version for an untouched file and
 * another for a changed one. A file read within 2 s of its last change gets a version of this
 * process alone instead (see `readWithVersion`).
 */
export async function loadSecretFiles(paths: readonly string[], options: SecretFilesOptions = {}): Promise<SecretFiles> {
  const debounceMs = options.debounceMs ?? 100;
  const now = options.now ?? Date.now;
  let files: string[] = [];
  for (const path of paths) files.push(...await manifestFiles(path));
  let byFile = new Map<string, readonly FileSecret[]>();
  const issues: ApplyIssue[] = [];
  for (const file of files) {
    const read = await readSecretFile(file, now);
    if (!read.ok) {
      if (read.error) throw read.error;
      issues.push(...read.issues);
    } else byFile.set(file, read.secrets);
  }
  if (issues.length > 0) {
    throw new StoreError(`invalid Secret manifests (nothing was loaded): ${issues.map(formatApplyIssue).join('; ')}`, false);
  }
  let merged = mergeFiles(files, byFile);
  const versions = new VersionHistory();
  merged = { ...merged, secrets: versions.stamp(new Map(), merged.secrets) };
  const changes = new SecretChanges();
  let watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  let again = false;
  let busy = false;

  // One re-read at a time; events during one start another after it.
  const reread = (): void => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    void (async () => {
      try {
        do {
          again = false;
          await reload();
        } while (again && changes.size > 0);
      } catch (error) {
        changes.problem(`re-reading the secrets files failed (${error instanceof Error ? error.name : typeof error}); the Secrets last read stay in use`);
      } finally {
        busy = false;
      }
    })();
  };

  const reload = async (): Promise<void> => {
    const nextFiles: string[] = [];
    for (const path of paths) {
      try {
        nextFiles.push(...await manifestFiles(path));
      } catch (error) {
        // A path gone for a moment (an editor replacing the file) keeps what it gave.
        changes.problem(`${errorMessage(error)}; the Secrets last read from it stay in use`);
        nextFiles.push(...files.filter((f) => f === path || dirname(f) === path));
      }
    }
    const next = new Map<string, readonly FileSecret[]>();
    for (const file of nextFiles) {
      const read = await readSecretFile(file, now);
      if (read.ok) {
        next.set(file, read.secrets);
        continue;
      }
      // Listed but gone before it was read: removed, as if it had not been listed.
      if (read.gone) continue;
      const why = read.error ? read.error.message : `invalid Secret manifests: ${read.issues.map(formatApplyIssue).join('; ')}`;
      changes.problem(`${why}; the Secrets last read from ${file} stay in use`);
      next.set(file, byFile.get(file) ?? []);
    }
    const before = merged.secrets;
    files = [...new Set(nextFiles)].filter((f) => next.has(f));
    byFile = next;
    const read = mergeFiles(files, byFile);
    merged = { ...read, secrets: versions.stamp(before, read.secrets) };
    const keys = new Set([...before.keys(), ...merged.secrets.keys()]);
    for (const key of keys) {
      const change = secretChangeOf(before.get(key), merged.secrets.get(key));
      if (change) changes.emit({ key, change });
    }
  };

  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      reread();
    }, debounceMs);
    timer.unref?.();
  };

  const startWatching = async (): Promise<void> => {
    for (const path of paths) {
      let directory: boolean;
      try {
        directory = (await stat(path)).isDirectory();
      } catch (error) {
        changes.problem(`cannot watch the secrets path ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}; it is read again only when another path changes`);
        continue;
      }
      const dir = directory ? path : dirname(path);
      const only = directory ? null : basename(path);
      try {
        const watcher = watchPath(dir, { persistent: false }, (_event, name) => {
          if (only === null || name === null || String(name) === only) schedule();
        });
        watcher.on('error', (error) => changes.problem(`watching ${dir} failed (${error.message}); changes there are no longer seen until the node restarts`));
        if (changes.size === 0) watcher.close();
        else watchers.push(watcher);
      } catch (error) {
        changes.problem(`cannot watch the secrets path ${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
    }
    // What changed between the first load and the watch.
    if (changes.size > 0) schedule();
  };

  const stopWatching = (): void => {
    for (const w of watchers) w.close();
    watchers = [];
    if (timer) clearTimeout(timer);
    timer = null;
  };

  return {
    get keys() {
      return [...merged.secrets.keys()];
    },
    get files() {
      return [...files];
    },
    get warnings() {
      return merged.warnings;
    },
    async get(namespace, name) {
      return merged.secrets.get(`${namespace}/${name}`);
    },
    watch(onEvent, watchOptions) {
      const first = changes.size === 0;
      const unsubscribe = changes.subscribe(onEvent, watchOptions);
      if (first) void startWatching();
      return () => {
        unsubscribe();
        if (changes.size === 0) stopWatching();
      };
    },
  };
}

interface FileSecret {
  readonly key: string;
  /** With the version of its file's state (replaced by the one before when the content is the same). */
  readonly secret: Secret;
  /** `file document N`, for the duplicate warning. */
  readonly at: string;
}

type FileRead =
  | { readonly ok: true; readonly secrets: readonly FileSecret[] }
  | { readonly ok: false; readonly gone: boolean; readonly error?: StoreError; readonly issues: readonly ApplyIssue[] };

async function readSecretFile(file: string, now: () => number): Promise<FileRead> {
  let read: { text: string; version: string };
  try {
    read = await readWithVersion(file, now);
  } catch (error) {
    return { ok: false, gone: (error as NodeJS.ErrnoException).code === 'ENOENT', error: error instanceof StoreError ? error : unreadable(file, error), issues: [] };
  }
  const docs: SourceDocument[] = [];
  for (const doc of readManifests(read.text, file)) {
    // A document that did not parse may have been a Secret: it fails the file rather than
    // leaving a host without its credentials for a reason nobody sees.
    if (doc.yamlError !== undefined || doc.kind === 'Secret') docs.push(doc);
  }
  const { valid, issues } = validateDocuments(docs);
  if (issues.length > 0) return { ok: false, gone: false, issues };
  const secrets: FileSecret[] = [];
  for (const doc of valid) {
    if (doc.type === 'secret') secrets.push({ key: doc.key, secret: withVersion(doc.secret, read.version), at: `${doc.source.file} ${documentName(doc.source)}` });
  }
  return { ok: true, secrets };
}

// A write racing the read: tried again this often before the read is taken as it is.
const STABLE_READ_TRIES = 3;
// The coarsest file time granularity in common use (FAT: 2 s; ext3 and some NFS: 1 s).
const RACY_NS = 2_000_000_000n;

/**
 * The file's text and a version of the state it was read in. The version is a digest of the
 * file's identity and times (and size, hidden in the digest: a manifest's size would tell a
 * password's length), never of the text, which holds the secret values. ctime cannot be set back
 * by a user, and an editor's write-and-rename gives a new inode, so a changed file gets another
 * version, also across a restart. A file changed within the last granule of its times is "racy"
 * (as git calls it): another write could still land with the very same state, so it gets a
 * version of this process alone instead — stable while the content stays, but another one after
 * a restart (one needless "credentials changed" then, never a change missed).
 */
async function readWithVersion(file: string, now: () => number): Promise<{ text: string; version: string }> {
  for (let attempt = 1; ; attempt += 1) {
    // Opened anew each try: a file replaced by a rename meanwhile is read as it now is.
    const handle = await open(file, 'r');
    try {
      const before = await handle.stat({ bigint: true });
      const decoded = decodeManifestBytes(await handle.readFile());
      // Not UTF-8: refused as the CLI refuses such a manifest, where a lossy decode changed the password.
      if (!decoded.ok) throw new StoreError(`cannot read the secrets file ${file}: ${decoded.reason}`, false);
      const text = decoded.text;
      const after = await handle.stat({ bigint: true });
      const version = stateDigest(after);
      if (version === stateDigest(before)) {
        const changedNs = after.mtimeNs > after.ctimeNs ? after.mtimeNs : after.ctimeNs;
        const racy = BigInt(Math.floor(now())) * 1_000_000n - changedNs < RACY_NS;
        return { text, version: racy ? freshSecretVersion() : version };
      }
      // Still being written: the watch brings a re-read once the writer is done.
      if (attempt >= STABLE_READ_TRIES) return { text, version: freshSecretVersion() };
    } finally {
      await handle.close();
    }
  }
}

function stateDigest(s: BigIntStats): string {
  const state = [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].join(':');
  return `f${createHash('sha256').update(state).digest('hex').slice(0, 20)}`;
}

/**
 * Each key's version across re-reads: the one before while the content is the same, else the
 * version the read brought — unless this key has had it already (a file rewritten within one
 * timestamp tick), when a fresh one stands in, so a version never comes back for other content.
 */
class VersionHistory {
  private readonly seen = new Map<string, Set<string>>();

  stamp(before: ReadonlyMap<string, Secret>, read: ReadonlyMap<string, Secret>): Map<string, Secret> {
    const out = new Map<string, Secret>();
    for (const [key, secret] of read) {
      const previous = before.get(key);
      const kept = previous?.metadata.resourceVersion;
      if (previous && kept !== undefined && sameSecretContent(previous, secret)) {
        out.set(key, withVersion(secret, kept));
        continue;
      }
      let seen = this.seen.get(key);
      if (!seen) this.seen.set(key, (seen = new Set()));
      let version = secret.metadata.resourceVersion ?? freshSecretVersion();
      if (seen.has(version)) version = freshSecretVersion();
      seen.add(version);
      out.set(key, withVersion(secret, version));
    }
    return out;
  }
}

// Files in order, a later Secret of the same name winning, as the first load has always done.
function mergeFiles(files: readonly string[], byFile: ReadonlyMap<string, readonly FileSecret[]>): { secrets: Map<string, Secret>; warnings: string[] } {
  const secrets = new Map<string, Secret>();
  const where = new Map<string, string>();
  const warnings: string[] = [];
  for (const file of files) {
    for (const { key, secret, at } of byFile.get(file) ?? []) {
      const earlier = where.get(key);
      if (earlier !== undefined) warnings.push(`Secret ${key} is given twice (${earlier} and ${at}); the later one wins`);
      where.set(key, at);
      secrets.set(key, secret);
    }
  }
  return { secrets, warnings };
}
