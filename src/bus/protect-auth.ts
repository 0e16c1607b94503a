// Apart from the transport so that the CLI can protect what it reads without loading the NATS client.

const SECRET_FIELDS = ['pass', 'token', 'nkeySeed'] as const;

/**
 * A copy of `auth` that is safe to log: the secret field stays readable by name but is not
 * enumerable, so JSON.stringify, util.inspect and spreads do not show it.
 */
export function protectAuth<A extends object>(auth: A): A {
  // Copy by descriptors, not by spread: a spread would drop a secret that is already hidden.
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(auth)) as Record<string, unknown>;
  for (const field of SECRET_FIELDS) {
    if (field in copy) Object.defineProperty(copy, field, { value: copy[field], enumerable: false });
  }
  return copy as A;
}
