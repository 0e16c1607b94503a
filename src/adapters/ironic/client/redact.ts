import { MASK, createRedactor as createSharedRedactor } from '../../http/index.ts';

export { MASK };
// Keeps secrets out of error text. Ironic echoes parts of a bad request in its answers: a schema
// error quotes the rejected value ("Schema error for node: '<driver_info>' ..."), a bad
// configdrive object comes back whole after "On instance:", a failed PATCH op is quoted. So
// every string of the request that may be secret is collected before sending, and replaced in
// whatever text an error carries — raw, as Python quotes it (repr) and as JSON escapes it.


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

/** A redactor for one request: replaces each secret (and its escaped forms) with `******`. */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const redact = createSharedRedactor(secrets);
  const hasSecrets = secrets.some((s) => s !== '');
  // jsonschema's message ends with the whole rejected instance; nothing after it is useful.
  return (text: string): string => {
    const out = redact(text);
    return hasSecrets ? out.replace(/On instance(\[[^\]]*\])*:[\s\S]*$/, `On instance: ${MASK}`) : out;
  };
}
