// apimachinery's field.Error: how a validation failure prints (`spec.x: Invalid value: 3: detail`)
// and which cause reason it carries (kube-api.md §8, `util/validation/field/errors.go`).

export type FieldErrorType =
  | 'Required' | 'Forbidden' | 'TooLong' | 'TooMany' | 'Invalid' | 'TypeInvalid'
  | 'NotSupported' | 'Duplicate' | 'NotFound' | 'Internal';

/** A value that is not printed (field.omitValue). */
export const OMIT = Symbol('omit');

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly value?: unknown;
  readonly detail: string;
}

const TEXT: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Forbidden: 'Forbidden',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Invalid: 'Invalid value',
  TypeInvalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Duplicate: 'Duplicate value',
  NotFound: 'Not found',
  Internal: 'Internal error',
};

const REASON: Record<FieldErrorType, string> = {
  Required: 'FieldValueRequired',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Invalid: 'FieldValueInvalid',
  TypeInvalid: 'FieldValueTypeInvalid',
  NotSupported: 'FieldValueNotSupported',
  Duplicate: 'FieldValueDuplicate',
  NotFound: 'FieldValueNotFound',
  Internal: 'InternalError',
};

// These types never print their value (field.Error.ErrorBody).
const VALUELESS = new Set<FieldErrorType>(['Required', 'Forbidden', 'TooLong', 'Internal']);

export function fieldError(type: FieldErrorType, field: string, value: unknown, detail = ''): FieldError {
  return { type, field, value, detail };
}

export const required = (field: string, detail = ''): FieldError => fieldError('Required', field, OMIT, detail);
export const forbidden = (field: string, detail: string): FieldError => fieldError('Forbidden', field, OMIT, detail);
export const invalid = (field: string, value: unknown, detail: string): FieldError => fieldError('Invalid', field, value, detail);

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return fieldError('NotSupported', field, value, detail);
}

export function tooLong(field: string, max: number): FieldError {
  return fieldError('TooLong', field, OMIT, max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long');
}

/** What follows `field: ` in a message, and the `message` of a Status cause. */
export function errorBody(e: FieldError): string {
  let s = TEXT[e.type];
  if (!VALUELESS.has(e.type) && e.value !== OMIT) s += `: ${goValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorText(e: FieldError): string {
  return e.field ? `${e.field}: ${errorBody(e)}` : errorBody(e);
}

export function causeOf(e: FieldError): { reason: string; message: string; field?: string } {
  return e.field ? { reason: REASON[e.type], message: errorBody(e), field: e.field } : { reason: REASON[e.type], message: errorBody(e) };
}

/** utilerrors.Aggregate: one message bare, several as `[a, b]`, repeated messages once. */
export function aggregate(errors: readonly FieldError[]): string {
  const seen = [...new Set(errors.map(fieldErrorText))];
  return seen.length === 1 ? (seen[0] as string) : `[${seen.join(', ')}]`;
}

/** How a bad value prints: numbers and bools bare, strings Go-quoted, anything else as JSON. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return goQuote(value);
  return JSON.stringify(value);
}

/** Go's strconv.Quote for the characters JSON and Go escape differently. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %v for a float64: shortest digits, exponent form from 1e+06 and below 1e-04. */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return '0';
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}
