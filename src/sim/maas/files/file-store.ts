import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../fleet/machine-json.ts';

// MAAS's FileStorage (src/maasserver/models/filestorage.py): files keyed by (filename, owner), so
// each user has a namespace of their own; saving a name that exists replaces its content in place
// (the key stays). Every file also has an unguessable key (a uuid4) that reads it without
// credentials: juju shares a file's anon_resource_uri with agents that hold no API key.

export interface StoredFile {
  readonly filename: string;
  readonly owner: string;
  content: Buffer;
  readonly key: string;
}

/** A copy of a stored file as tests see it. */
export interface SimFile {
  filename: string;
  owner: string;
  content: Buffer;
  key: string;
}

// Django's reverse() quotes a path with RFC 3986's sub-delimiters and "/~:@" left as they are:
// a filename with slashes keeps them (MAAS's own tests say the file URL has them unescaped).
const KEPT = /%(24|26|2B|2C|3B|3D|2F|3A|40)/gi;

export function fileResourceUri(filename: string): string {
  return `${API_PREFIX}/files/${encodeURIComponent(filename).replace(KEPT, (m) => decodeURIComponent(m))}/`;
}

/** FileStorage.anon_resource_uri: the collection with op=get_by_key, answered without OAuth. */
export function anonResourceUri(f: Pick<StoredFile, 'key'>): string {
  return `${API_PREFIX}/files/?${new URLSearchParams({ op: 'get_by_key', key: f.key }).toString()}`;
}

/** A file in a listing (DISPLAYED_FILES_FIELDS plus resource_uri): no content. */
export function fileListJson(f: StoredFile) {
  return { filename: f.filename, anon_resource_uri: anonResourceUri(f), resource_uri: fileResourceUri(f.filename) };
}

/** json_file_storage: the listing's fields plus the content, base64-encoded. */
export function fileJson(f: StoredFile) {
  return { ...fileListJson(f), content: f.content.toString('base64') };
}

export class FileStore {
  private readonly files: StoredFile[] = [];

  /** FileStorageManager.save_file: a name the owner already has gets the new content; otherwise a new file. */
  save(owner: string, filename: string, content: Buffer): StoredFile {
    const existing = this.byName(owner, filename);
    if (existing) {
      existing.content = Buffer.from(content);
      return existing;
    }
    const file: StoredFile = { filename, owner, content: Buffer.from(content), key: randomUUID() };
    this.files.push(file);
    return file;
  }

  /** The owner's files, by filename, those starting with `prefix` when one is given. */
  list(owner: string, prefix?: string): StoredFile[] {
    return this.files
      .filter((f) => f.owner === owner && (prefix === undefined || f.filename.startsWith(prefix)))
      .sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  }

  byName(owner: string, filename: string): StoredFile | undefined {
    return this.files.find((f) => f.owner === owner && f.filename === filename);
  }

  /** Any owner's file: the key is the credential. */
  byKey(key: string): StoredFile | undefined {
    return this.files.find((f) => f.key === key);
  }

  /** False when the owner has no such file. */
  remove(owner: string, filename: string): boolean {
    const at = this.files.findIndex((f) => f.owner === owner && f.filename === filename);
    if (at === -1) return false;
    this.files.splice(at, 1);
    return true;
  }

  snapshot(): SimFile[] {
    return this.files.map((f) => ({ filename: f.filename, owner: f.owner, content: Buffer.from(f.content), key: f.key }));
  }
}
