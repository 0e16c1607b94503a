// Keeps secrets out of error text. A failing backend (or a proxy in front of it) may quote the
// request back — Ironic quotes a rejected driver_info or config drive, MAAS the user data — so
// each secret of a request is replaced wherever it appears, raw and in the escaped forms it
// travels in (Python repr, JSON, and whatever the caller adds, e.g. percent-encoding).

export const MASK = '******';

// Below this length a secret is replaced only where it stands quoted, so that a one-letter
// password does not blank out every "a" of a message.
const SHORT = 4;
// Lines of a multi-line secret (user data) this long or longer are replaced on their own too,
// in case a part of it is quoted.
const LINE = 8;

function pythonRepr(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/'/g, "\\'");
}

function jsonEscaped(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

function variants(secret: string, extraForms: (s: string) => string[]): string[] {
  const bases = [secret, pythonRepr(secret), jsonEscaped(secret), ...extraForms(secret)];
  if (secret.includes('\n')) bases.push(...secret.split(/\r?\n/).filter((line) => line.trim().length >= LINE));
  const all = new Set<string>();
  for (const b of bases) {
    all.add(b);
    all.add(jsonEscaped(b));
  }
  return [...all];
}

/** A redactor for one request: replaces each secret (and its escaped forms) with `******`. */
export function createRedactor(secrets: readonly string[], extraForms: (s: string) => string[] = () => []): (text: string) => string {
  const long: string[] = [];
  const quoted: string[] = [];
  for (const s of secrets) {
    if (s === '') continue;
    if (s.length >= SHORT) long.push(...variants(s, extraForms));
    else for (const v of variants(s, extraForms)) quoted.push(`'${v}'`, `"${v}"`, `\\"${v}\\"`);
  }
  // Longest first, so a secret containing another is replaced whole.
  const needles = [...new Set([...long, ...quoted])].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const n of needles) out = out.split(n).join(MASK);
    return out;
  };
}
