// Keeps secrets out of error text. Ironic echoes parts of a bad request in its answers: a schema
// error quotes the rejected value ("Schema error for node: '<driver_info>' ..."), a bad
// configdrive object comes back whole after "On instance:", a failed PATCH op is quoted. So
// every string of the request that may be secret is collected before sending, and replaced in
// whatever text an error carries — raw, as Python quotes it (repr) and as JSON escapes it.

export const MASK = '******';

// Keys whose values are secret, wherever they appear in a request body or PATCH path. All of
// driver_info counts: besides passwords it holds BMC addresses and user names, and Ironic quotes
// the whole of it when it rejects its type.
const SECRET_KEY = /pass(word|wd|phrase)?|secret|token|credential|private|(^|_)key$|configdrive|user_data|network_data|meta_data|vendor_data|^driver_info$/i;

/** Every string in `body` under a secret key (the whole value when the key itself is secret). */
export function collectSecrets(body: unknown): string[] {
  const out: string[] = [];
  if (Array.isArray(body) && body.every(isPatchOp)) {
    for (const op of body) {
      const secretPath = op.path.split('/').some((part) => SECRET_KEY.test(part));
      walk(op.value, secretPath, out);
    }
    return out;
  }
  walk(body, false, out);
  return out;
}

function isPatchOp(v: unknown): v is { op: string; path: string; value?: unknown } {
  return typeof v === 'object' && v !== null && typeof (v as { path?: unknown }).path === 'string' && typeof (v as { op?: unknown }).op === 'string';
}

function walk(value: unknown, secret: boolean, out: string[]): void {
  if (typeof value === 'string') {
    if (secret && value !== '') out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) walk(v, secret, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) walk(v, secret || SECRET_KEY.test(k), out);
  }
}

// Below this length a secret is only replaced where it stands quoted, so that a one-letter
// password does not blank out every "a" of a message.
const SHORT = 4;
// Lines of a multi-line secret (user data) this long or longer are replaced on their own too,
// in case Ironic quotes a part of it.
const LINE = 8;

function pythonRepr(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/'/g, "\\'");
}

function jsonEscaped(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

function variants(secret: string): string[] {
  const bases = [secret, pythonRepr(secret), jsonEscaped(secret)];
  if (secret.includes('\n')) bases.push(...secret.split(/\r?\n/).filter((line) => line.trim().length >= LINE));
  const all = new Set<string>();
  for (const b of bases) {
    all.add(b);
    all.add(jsonEscaped(b));
  }
  return [...all];
}

/** A redactor for one request: replaces each secret (and its escaped forms) with `******`. */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const long: string[] = [];
  const quoted: string[] = [];
  for (const s of secrets) {
    if (s.length >= SHORT) long.push(...variants(s));
    else for (const v of variants(s)) quoted.push(`'${v}'`, `"${v}"`, `\\"${v}\\"`);
  }
  // Longest first, so a secret containing another is replaced whole.
  const needles = [...new Set([...long, ...quoted])].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  const hasSecrets = needles.length > 0;
  return (text: string): string => {
    let out = text;
    for (const n of needles) out = out.split(n).join(MASK);
    // jsonschema's message ends with the whole rejected instance; nothing after it is useful.
    if (hasSecrets) out = out.replace(/On instance(\[[^\]]*\])*:[\s\S]*$/, `On instance: ${MASK}`);
    return out;
  };
}
