import { formatFieldError, type FieldError, type FieldErrorType } from '../../../api/index.ts';
import type { Status } from './admission-review.ts';

// metav1.Status values, built the way k8s.io/apimachinery/pkg/api/errors does, so a denial reads
// like any other invalid object and a failed call like any other API error.

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'RequestEntityTooLarge',
  422: 'Invalid',
  500: 'InternalError',
};

// field.ErrorType → metav1.CauseType.
const CAUSE_TYPES: Record<FieldErrorType, string> = {
  Invalid: 'FieldValueInvalid',
  TypeInvalid: 'FieldValueTypeInvalid',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Forbidden: 'FieldValueForbidden',
  Required: 'FieldValueRequired',
  NotSupported: 'FieldValueNotSupported',
  Duplicate: 'FieldValueDuplicate',
};

/** A Status for an HTTP error answer: the API server shows its message when the call fails. */
export function failureStatus(code: number, message: string): Status {
  return { metadata: {}, status: 'Failure', message, reason: REASONS[code] ?? 'Unknown', code };
}

/** The object one admission is about, as the messages name it. */
export type ObjectRef = { group: string; kind: string; name: string };

/**
 * apierrors.NewInvalid: 422, reason Invalid, one cause per field error, and a message that lists
 * each error as `metalfleet validate` prints it (field path first), bracketed when there are
 * several, as field.ErrorList.ToAggregate() does.
 */
export function invalidStatus(ref: ObjectRef, errors: readonly FieldError[]): Status {
  const lines = errors.map(formatFieldError);
  const list = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  const qualified = ref.group === '' ? ref.kind : `${ref.kind}.${ref.group}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `${qualified} ${JSON.stringify(ref.name)} is invalid: ${list}`,
    reason: 'Invalid',
    details: {
      name: ref.name,
      group: ref.group,
      kind: ref.kind,
      causes: errors.map((e) => ({ reason: CAUSE_TYPES[e.type ?? 'Invalid'], message: e.reason, field: e.path })),
    },
    code: 422,
  };
}
