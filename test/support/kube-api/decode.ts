// A request body into an object the write path can take, as the API server's decoder does:
// JSON (or YAML) parsing, kind checks, pruning with `unknown field` warnings (400 under
// fieldValidation=Strict), metadata coercion, and defaults.
import { parse as parseYaml } from 'yaml';
import { decodeBuiltin, defaultBuiltin } from './builtin-rules.ts';
import { apiErrors } from './errors.ts';
import { coerceMeta } from './meta.ts';
import { applyDefaults } from './schema-default.ts';
import { pruneResource } from './schema-prune.ts';
import { groupVersion, isObj } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface Target {
  readonly res: ResourceDef;
  readonly version: VersionDef;
  /** The namespace from the URL ('' for cluster-scoped or all-namespaces paths). */
  readonly namespace: string;
}

/** `the object provided is unrecognized …` with the first 30 bytes of the body, as Go summarises it. */
function unrecognized(res: ResourceDef, why: string, body: string): Error {
  const summary = body.length === 0 ? '<empty>' : body.startsWith('{')
    ? (body.length > 30 ? `${body.slice(0, 30)} ...` : body)
    : (body.length > 30 ? `${Buffer.from(body.slice(0, 30)).toString('hex')} ...` : Buffer.from(body).toString('hex'));
  return apiErrors.badRequest(`the object provided is unrecognized (must be of type ${res.kind}): ${why} (${summary})`);
}

/** Parses a create/update body by its Content-Type (JSON by default; YAML accepted). */
export function parseBody(t: Target, text: string, contentType: string): unknown {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== '' && type !== 'application/json' && type !== 'application/yaml' && type !== '*/*') {
    throw apiErrors.unsupportedMediaType(['application/json', 'application/yaml', ...(t.res.builtin ? ['application/vnd.kubernetes.protobuf'] : [])]);
  }
  try {
    return type === 'application/yaml' ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw unrecognized(t.res, `couldn't get version/kind; json parse error: ${(e as Error).message}`, text);
  }
}

export interface Decoded {
  readonly obj: Obj;
  /** `unknown field "spec.foo"` texts for the Warning header. */
  readonly warnings: readonly string[];
}

/**
 * @param duplicates paths of keys the body repeats (`duplicateFields`); reported before unknown
 *   fields, as the strict JSON decoder finds them first.
 */
export function decodeObject(t: Target, raw: unknown, text: string, validation: FieldValidation, duplicates: readonly string[] = []): Decoded {
  const { res, version } = t;
  if (!isObj(raw)) throw unrecognized(res, `json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw} into Go value of type map[string]interface {}`, text);
  const obj = structuredClone(raw);
  if (res.builtin) {
    if (obj.kind === undefined || obj.kind === '') obj.kind = res.kind;
    if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = groupVersion(res, version.name);
    if (obj.kind !== res.kind) throw unrecognized(res, `no kind "${String(obj.kind)}" is registered for version "${String(obj.apiVersion)}"`, text);
    decodeBuiltin(res, version.name, obj);
  } else if (typeof obj.kind !== 'string' || obj.kind === '') {
    throw unrecognized(res, `Object 'Kind' is missing in '${text}'`, text);
  }
  const pruned = pruneResource(obj, version.schema);
  const meta = coerceMeta(obj);
  if (meta.typeError) throw apiErrors.undecodable(res, version.name, meta.typeError);
  const unknown = [...duplicates.map((p) => `duplicate field "${p}"`), ...[...pruned, ...meta.pruned].map((p) => `unknown field "${p}"`)];
  if (validation === 'Strict' && unknown.length > 0) {
    throw apiErrors.undecodable(res, version.name, `strict decoding error: ${unknown.join(', ')}`);
  }
  if (res.builtin) defaultBuiltin(res, obj);
  else applyDefaults(obj, version.schema);
  return { obj, warnings: validation === 'Warn' ? unknown : [] };
}
