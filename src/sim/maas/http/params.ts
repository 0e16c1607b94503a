import type { UploadedFile } from './multipart.ts';

// Request parameters as Django's QueryDict holds them: ordered pairs, a key may repeat
// (`tags=a&tags=b`), `get` answers the last value, `lists` groups by key in first-seen order.
// Uploaded files of a multipart body are kept apart, as Django's request.FILES.

export class Params {
  private constructor(
    readonly pairs: ReadonlyArray<readonly [string, string]>,
    readonly files: readonly UploadedFile[] = [],
  ) {}

  /** Form fields (and uploads) already split out of a body, e.g. a multipart one. */
  static of(pairs: ReadonlyArray<readonly [string, string]>, files: readonly UploadedFile[] = []): Params {
    return new Params([...pairs], [...files]);
  }

  static parse(text: string): Params {
    const pairs: Array<[string, string]> = [];
    for (const part of text.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const rawKey = eq === -1 ? part : part.slice(0, eq);
      const rawValue = eq === -1 ? '' : part.slice(eq + 1);
      pairs.push([decodeFormComponent(rawKey), decodeFormComponent(rawValue)]);
    }
    return new Params(pairs);
  }

  static empty(): Params {
    return new Params([]);
  }

  /** These pairs followed by `other`'s (query first, then body). */
  concat(other: Params): Params {
    return new Params([...this.pairs, ...other.pairs], [...this.files, ...other.files]);
  }

  has(key: string): boolean {
    return this.pairs.some(([k]) => k === key);
  }

  /** The last value given for `key`, like QueryDict.get. */
  get(key: string): string | undefined {
    let value: string | undefined;
    for (const [k, v] of this.pairs) if (k === key) value = v;
    return value;
  }

  getAll(key: string): string[] {
    return this.pairs.filter(([k]) => k === key).map(([, v]) => v);
  }

  keys(): string[] {
    return this.lists().map(([k]) => k);
  }

  lists(): Array<[string, string[]]> {
    const out = new Map<string, string[]>();
    for (const [k, v] of this.pairs) {
      const values = out.get(k);
      if (values) values.push(v);
      else out.set(k, [v]);
    }
    return [...out.entries()];
  }
}

// application/x-www-form-urlencoded: '+' is a space; a broken escape is kept as written.
function decodeFormComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

// formencode's StringBool, which MAAS uses for erase, ephemeral_deploy, dry_run and the like.
const TRUE_WORDS = new Set(['true', 'yes', 'on', 'y', 't', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', 'n', 'f', '0', '']);

export function parseStringBool(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}
