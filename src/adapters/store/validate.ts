import type { z } from 'zod';
import { BareMetalHost, misspelledKind } from '../../api/index.ts';
import { misgroupedKind } from '../../api/kind-typo.ts';
import { formatFieldPath, type FieldError } from '../../api/field-error.ts';
import { documentName, kindOf, whereOf, type ManifestDocument } from '../../api/manifest.ts';
import { Secret } from '../../api/secret.ts';
import { withDataUnwrapped } from '../../api/manifest-secret.ts';
import { pruneHostNulls, validateBareMetalHost } from '../../api/bmh/validate.ts';
import type { ValidateOptions } from '../../api/bmh/validate.ts';
import { objectSizeErrors } from '../../api/limits.ts';
import { objectMetaErrors } from '../../api/names.ts';

/** One problem with one document; nothing of the document's values is quoted. */
export interface ApplyIssue {
  readonly file: string;
  /** 0-based position of the document in the file (or of the object in the list). */
  readonly index: number;
  /** 0-based position of the object in its document's List `items`, when it came from one. */
  readonly item?: number;
  /** 1-based line where the document starts, when it came from YAML. */
  readonly line?: number;
  readonly kind?: string;
  /** `namespace/name`, when the document names one. */
  readonly key?: string;
  /** Field path of the problem, e.g. `spec.bmc.address`; empty for the document as a whole. */
  readonly path: string;
  readonly message: string;
}

export function formatApplyIssue(issue: ApplyIssue): string {
  const where = `${issue.file} ${documentName(issue)}${issue.line !== undefined ? ` (line ${issue.line})` : ''}`;
  const what = issue.kind ? ` ${issue.kind}${issue.key ? ` ${issue.key}` : ''}` : '';
  return `${where}:${what} ${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
}

export type SourceDocument = Pick<ManifestDocument, 'file' | 'index' | 'object'> & {
  /** Its place in its document's List `items`, for a List's item. */
  item?: number;
  line?: number;
  yamlError?: string;
  /** Named by the store from its generateName (generated-names.ts): to be created, never to update. */
  generated?: boolean;
};

export type ValidDocument =
  | { readonly type: 'host'; readonly source: SourceDocument; readonly key: string; readonly host: BareMetalHost }
  | { readonly type: 'secret'; readonly source: SourceDocument; readonly key: string; readonly secret: Secret }
  | { readonly type: 'skipped'; readonly source: SourceDocument; readonly kind: string; readonly key?: string };

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function keyOf(object: Record<string, unknown> | undefined): string | undefined {
  const metadata = record(object?.metadata);
  const name = metadata?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const namespace = typeof metadata?.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : 'default';
  return `${namespace}/${name}`;
}

function issuesOf(error: z.ZodError, base: Omit<ApplyIssue, 'path' | 'message'>): ApplyIssue[] {
  return error.issues.map((issue) => ({
    ...base,
    path: formatFieldPath(issue.path.filter((s): s is string | number => typeof s !== 'symbol')),
    message: issue.message,
  }));
}

/** Parses every document; either all are valid (hosts, secrets, skipped kinds) or the issues. */
// Hosts get the same rules as the admission webhook and `metalfleet validate` (create rules, and
// update rules against the stored version), so nothing the webhook would refuse gets stored.
export function validateDocuments(docs: readonly SourceDocument[], stored: (key: string) => unknown = () => undefined, admission: false | ValidateOptions = {}): { valid: ValidDocument[]; issues: ApplyIssue[] } {
  const valid: ValidDocument[] = [];
  const issues: ApplyIssue[] = [];
  for (const source of docs) {
    const where = whereOf(source);
    if (source.yamlError !== undefined) {
      issues.push({ ...where, path: '', message: `YAML: ${source.yamlError}` });
      continue;
    }
    const object = record(source.object);
    if (object === undefined) {
      issues.push({ ...where, path: '', message: 'a document must be a mapping (an object with apiVersion, kind and metadata)' });
      continue;
    }
    const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : undefined;
    const kind = typeof object.kind === 'string' ? object.kind : undefined;
    const key = keyOf(object);
    // A name the store made from generateName is not the user's: problems are named by the
    // document, and the name's are the generateName's (reported at metadata.generateName).
    const named = { ...where, ...(kind ? { kind } : {}), ...(key && !source.generated ? { key } : {}) };
    const own = (errors: readonly FieldError[]): FieldError[] => (source.generated ? errors.filter((e) => e.path !== 'metadata.name') : [...errors]);
    // Too big to store is checked before the schema walks it, for every kind.
    const tooBig = objectSizeErrors(object);
    if (tooBig.length > 0) {
      issues.push(...tooBig.map((e) => ({ ...named, path: e.path, message: e.reason })));
      continue;
    }
    switch (kindOf({ apiVersion, kind })) {
      case 'BareMetalHost': {
        // validateBareMetalHost gives the schema's errors and the rules' together, as validate
        // shows them: the rules ran only once the schema passed, so a host with a bad size hint
        // hid its bad device name, and a bad MAC got the schema's pattern, not BMO's words.
        const ruleErrors = admission !== false ? own(validateBareMetalHost(object, key && !source.generated ? stored(key) : undefined, admission)) : [];
        if (ruleErrors.length > 0) {
          issues.push(...ruleErrors.map((e) => ({ ...named, path: e.path, message: e.reason })));
          break;
        }
        // Stored as the API server would store it: without the nulls the webhook's view prunes.
        const parsed = BareMetalHost.safeParse(pruneHostNulls(object));
        if (!parsed.success) issues.push(...issuesOf(parsed.error, named));
        else valid.push({ type: 'host', source, key: `${parsed.data.metadata.namespace}/${parsed.data.metadata.name}`, host: parsed.data });
        break;
      }
      case 'Secret': {
        // Stored as the API server decodes it: base64 wrapped over lines is the same bytes.
        const parsed = Secret.safeParse(withDataUnwrapped(object));
        const meta = own(objectMetaErrors(object));
        if (meta.length > 0) issues.push(...meta.map((e) => ({ ...named, path: e.path, message: e.reason })));
        else if (!parsed.success) issues.push(...issuesOf(parsed.error, named));
        else valid.push({ type: 'secret', source, key: `${parsed.data.metadata.namespace}/${parsed.data.metadata.name}`, secret: parsed.data });
        break;
      }
      default: {
        const meant = kind === undefined ? null : misspelledKind(kind);
        const group = kind === undefined ? null : misgroupedKind(apiVersion, kind);
        if (kind === undefined) issues.push({ ...named, path: 'kind', message: 'kind is required' });
        else if (meant !== null) issues.push({ ...named, path: 'kind', message: `kind ${kind} is not one metalfleet knows; did you mean ${meant}?` });
        else if (group !== null) issues.push({ ...named, path: 'apiVersion', message: group });
        else valid.push({ type: 'skipped', source, kind, ...(key ? { key } : {}) });
      }
    }
  }
  return { valid, issues };
}
