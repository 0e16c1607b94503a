import type { FieldError } from './field-error.ts';

// metadata.generateName, as the API server treats it (reference/kube-api.md §5): an object with
// a generateName and no name is named on create, once, by appending five random characters to the
// generateName (cut to 58 characters so the name fits 63; apiserver names.SimpleNameGenerator).
// The name is then checked like any other. Only a create can be named so: an update needs a name.

/** utilrand's alphabet: no vowels (no words) and no 0, 1 or 3 (no look-alikes). */
export const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const GENERATED_SUFFIX_LENGTH = 5;
export const MAX_GENERATE_NAME_BASE = 63 - GENERATED_SUFFIX_LENGTH;

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The generateName of an object that has no name yet (it is to be named on create); else null. */
export function pendingGenerateName(obj: unknown): string | null {
  const metadata = record(record(obj)?.metadata);
  if (metadata === undefined) return null;
  const { name, generateName } = metadata;
  if (typeof name === 'string' && name !== '') return null;
  return typeof generateName === 'string' && generateName !== '' ? generateName : null;
}

/** `randomIndex(n)` picks 0..n-1: crypto's randomInt where names are made, a fixed one in tests. */
export function generatedName(base: string, randomIndex: (n: number) => number): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) suffix += GENERATED_NAME_ALPHABET[randomIndex(GENERATED_NAME_ALPHABET.length)];
  return base.slice(0, MAX_GENERATE_NAME_BASE) + suffix;
}

/** A copy of `obj` with metadata.name set (generateName stays, as the API server keeps it). */
export function withName<T>(obj: T, name: string): T {
  const o = record(obj) ?? {};
  return { ...o, metadata: { ...record(o.metadata), name } } as T;
}

// A suffix for checking before the store names the object: 'x' is in the alphabet and no hex
// digit, so the placeholder never makes a name read as a UUID that the real one would not.
const PLACEHOLDER = (): number => GENERATED_NAME_ALPHABET.indexOf('x');

/**
 * Runs `check` on the object as it will be once created: an object named only by generateName is
 * checked under a name made from it. The name's own problems are the generateName's (reported at
 * metadata.generateName by objectMetaErrors), so errors at metadata.name are not repeated.
 */
export function checkAsCreated(obj: unknown, check: (named: unknown) => FieldError[]): FieldError[] {
  const base = pendingGenerateName(obj);
  if (base === null) return check(obj);
  return check(withName(obj, generatedName(base, PLACEHOLDER))).filter((e) => e.path !== 'metadata.name');
}
