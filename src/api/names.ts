import { fieldError, type FieldError } from './field-error.ts';

// Kubernetes' rules for names, namespaces, label and annotation keys and label values
// (apimachinery pkg/util/validation/validation.go and pkg/api/validation/objectmeta.go), worded
// as the API server words them (reference/kube-api.md §8) so `metalfleet validate` reads like
// `kubectl apply`. The stores key objects by namespace and name: a name outside these rules is
// refused where objects enter, never found at the store (a 5,000-character name made a NATS
// subject longer than the server's control line and was retried forever: issue 19.5).

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_MAX = 63;
/** All annotations of an object together, keys and values (TotalAnnotationSizeLimitB). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_RE = new RegExp(`^${LABEL_FMT}$`);
const SUBDOMAIN_RE = new RegExp(`^${SUBDOMAIN_FMT}$`);
const QNAME_RE = new RegExp(`^${QNAME_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

const LABEL_MSG = 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character';
const SUBDOMAIN_MSG = 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character';
const QNAME_MSG = 'must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character';
const LABEL_VALUE_MSG = 'a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character';

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}

function maxLen(n: number): string {
  return `must be no more than ${n} characters`;
}

/** IsDNS1123Label: what is wrong with `value` as a namespace; [] when it is one. */
export function dns1123LabelProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLen(DNS1123_LABEL_MAX));
  // A regex on a megabyte string is linear, but there is no need to run it past the limit.
  const head = value.slice(0, DNS1123_SUBDOMAIN_MAX + 1);
  if (!LABEL_RE.test(head)) errs.push(SUBDOMAIN_RE.test(head) ? 'must not contain dots' : regexError(LABEL_MSG, LABEL_FMT, 'my-name', '123-abc'));
  return errs;
}

/** IsDNS1123Subdomain: what is wrong with `value` as an object name; [] when it is one. */
export function dns1123SubdomainProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLen(DNS1123_SUBDOMAIN_MAX));
  if (!SUBDOMAIN_RE.test(value.slice(0, DNS1123_SUBDOMAIN_MAX + 1))) errs.push(regexError(SUBDOMAIN_MSG, SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** IsQualifiedName: label and annotation keys, `[prefix/]name`. */
export function qualifiedNameProblems(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLen(QUALIFIED_NAME_MAX)}`);
  if (!QNAME_RE.test(name.slice(0, QUALIFIED_NAME_MAX + 1))) errs.push(`name part ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** IsValidLabelValue. */
export function labelValueProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLen(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value.slice(0, LABEL_VALUE_MAX + 1))) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

// The API server quotes the value whole; a 5,000-character one is cut here, saying so, so the
// line stays readable (the terminal cuts at 2,000 characters anyway).
const SHOWN_MAX = 80;
function quoted(value: string): string {
  if (value.length <= SHOWN_MAX) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, SHOWN_MAX))}... (${value.length} characters)`;
}

function invalid(path: string, value: string, problems: readonly string[]): FieldError[] {
  return problems.map((m) => fieldError(path, `Invalid value: ${quoted(value)}: ${m}`));
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

// apimachinery's maskTrailingDash: a generateName may end in '-', since characters follow it. It
// replaces the last two characters with 'a' (Go's name[:len-2]+"a"), which we copy, quirk and all.
function maskTrailingDash(prefix: string): string {
  return prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix;
}

/**
 * ValidateObjectMeta for a namespaced object, as the API server runs it before the schema:
 * metadata.name a DNS-1123 subdomain (metadata.generateName one once masked), metadata.namespace (when given) a DNS-1123 label, label
 * keys and values and annotation keys by their rules, annotations at most 256 KiB together.
 * Fields of the wrong type are left to the schema, which names them.
 */
export function objectMetaErrors(obj: unknown): FieldError[] {
  const metadata = record(record(obj)?.metadata);
  if (metadata === undefined) return [];
  const errors: FieldError[] = [];
  const { name, generateName, namespace, labels, annotations } = metadata;
  // The prefix is checked as the API server does (ValidateNameFunc with prefix=true), whether or
  // not a name is given too.
  if (typeof generateName === 'string' && generateName !== '') {
    errors.push(...invalid('metadata.generateName', generateName, dns1123SubdomainProblems(maskTrailingDash(generateName))));
  }
  if (typeof name === 'string' && name !== '') errors.push(...invalid('metadata.name', name, dns1123SubdomainProblems(name)));
  if (typeof namespace === 'string' && namespace !== '') errors.push(...invalid('metadata.namespace', namespace, dns1123LabelProblems(namespace)));
  const labelMap = record(labels);
  if (labelMap) {
    for (const [key, value] of Object.entries(labelMap)) {
      errors.push(...invalid('metadata.labels', key, qualifiedNameProblems(key)));
      if (typeof value === 'string') errors.push(...invalid('metadata.labels', value, labelValueProblems(value)));
    }
  }
  const annotationMap = record(annotations);
  if (annotationMap) {
    let bytes = 0;
    for (const [key, value] of Object.entries(annotationMap)) {
      // The API server checks keys lower-cased: annotation keys may hold capitals.
      errors.push(...invalid('metadata.annotations', key, qualifiedNameProblems(key.toLowerCase())));
      bytes += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
    }
    if (bytes > ANNOTATIONS_MAX_BYTES) errors.push(fieldError('metadata.annotations', `Too long: must have at most ${ANNOTATIONS_MAX_BYTES} bytes`, 'TooLong'));
  }
  return errors;
}
