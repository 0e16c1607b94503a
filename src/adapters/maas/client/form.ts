import { percentEncode } from './percent-encode.ts';

// Parameters of a MAAS call, in the order they go on the wire: keys sorted (as maas-client-go
// and the MAAS CLI send them), a multi-valued parameter as repeated pairs in the caller's order
// (`tags=a&tags=b`; see capmaas.md §2.7 for what sending only the last one cost CAPMAAS).

export type FormPairs = ReadonlyArray<readonly [string, string]>;

export type FormValue = string | number | boolean | readonly string[] | undefined;

/** Pairs from an object: undefined is left out, booleans are `true`/`false`, arrays repeat. */
export function formPairs(fields: Readonly<Record<string, FormValue>>): FormPairs {
  const out: Array<readonly [string, string]> = [];
  for (const key of Object.keys(fields).sort()) {
    const v = fields[key];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v as readonly string[]) out.push([key, item]);
    else out.push([key, String(v)]);
  }
  return out;
}

/** `a=1&b=x%20y`: the body of an application/x-www-form-urlencoded request, or a query string. */
export function encodeForm(pairs: FormPairs): string {
  return pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
}
