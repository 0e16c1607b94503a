// Whole OpenAPI v3 schemas of the built-in kinds, for `kubectl explain deployment.spec.template…`:
// the field tree and descriptions come from @kubernetes/client-node's generated models (1.4.0 is
// generated from the v1.34.0 spec this server stands in for): each model's attributeTypeMap gives
// the fields and their types, its .d.ts the descriptions and which fields are required. Nested
// types are `$ref`s wrapped in `allOf`, named `io.k8s.api.<group>.<version>.<GoType>` as the real
// server names them; kubectl explain prints a `$ref`'s last segment as the type (`<[]Container>`).
// Only /openapi/v3 uses them: the server's own decoding keeps the short schemas of builtin.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as models from '@kubernetes/client-node';
import type { Obj, ResourceDef } from './types.ts';

interface Attribute { readonly name: string; readonly baseName: string; readonly type: string; readonly format: string }
type Model = { getAttributeTypeMap(): readonly Attribute[] };

export const OBJECT_META_NAME = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const META_PREFIX = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
// intstr.IntOrString's OpenAPIV3OneOfTypes: no `type`, so kubectl explain names it `<IntOrString>`.
const INT_OR_STRING_SCHEMA: Obj = {
  description: 'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.',
  oneOf: [{ type: 'integer' }, { type: 'string' }],
  format: 'int-or-string',
};
const META_TYPES: ReadonlySet<string> = new Set(['LabelSelector', 'LabelSelectorRequirement', 'OwnerReference', 'ManagedFieldsEntry', 'Condition', 'ListMeta', 'Time', 'MicroTime']);

const MODELS_DIR = join(dirname(createRequire(import.meta.url).resolve('@kubernetes/client-node')), 'gen', 'models');
const registry = models as unknown as Record<string, unknown>;

function modelOf(className: string): Model | undefined {
  const m = registry[className] as Partial<Model> | undefined;
  return typeof m?.getAttributeTypeMap === 'function' ? (m as Model) : undefined;
}

// `V1StatefulSetSpec` → version prefix and Go name; `CoreV1Event`, `AdmissionregistrationV1ServiceReference` name their group.
function split(className: string): { group?: string; version: string; goName: string } {
  const m = /^([A-Z][a-z]+)?(V\d+(?:(?:alpha|beta)\d+)?)([A-Z].*)$/.exec(className);
  if (!m) return { version: 'v1', goName: className };
  return { group: m[1]?.toLowerCase(), version: (m[2] ?? 'V1').toLowerCase(), goName: m[3] ?? className };
}

function groupPrefix(group: string, version: string): string {
  if (group === '' || group === 'core') return `io.k8s.api.core.${version}`;
  if (group === 'apiextensions' || group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  return `io.k8s.api.${group.split('.')[0] ?? group}.${version}`;
}

interface Docs { readonly description?: string; readonly fields: ReadonlyMap<string, string>; readonly required: readonly string[] }

const unescape = (s: string): string => s.replace(/\\(['"\\])/g, '$1');

function docsOf(className: string): Docs {
  let text = '';
  try {
    text = readFileSync(join(MODELS_DIR, `${className}.d.ts`), 'utf8');
  } catch {
    return { fields: new Map(), required: [] };
  }
  const clean = (comment: string): string => unescape(comment.split('\n').map((l) => l.replace(/^\s*\*\s?/, '').trim()).filter((l) => l !== '').join('\n'));
  const cls = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*export declare class ${className}\\b`).exec(text);
  const fields = new Map<string, string>();
  for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*'([^']+)'\??:/g)) fields.set(m[2] ?? '', clean(m[1] ?? ''));
  const required = [...text.matchAll(/^\s*'([^']+)':/gm)].map((m) => m[1] ?? '');
  return { description: cls ? clean(cls[1] ?? '') : undefined, fields, required };
}

/** The v3 component schemas of one kind: its own (without apiVersion, kind, metadata) and every type it reaches. */
export interface KindSchemas {
  readonly root: Obj;
  readonly definitions: Readonly<Record<string, Obj>>;
}

const ROOT_CLASS: Readonly<Record<string, string>> = { Event: 'CoreV1Event' };

function rootClass(res: ResourceDef): string | undefined {
  const version = res.versions.find((v) => v.storage)?.name ?? 'v1';
  const name = ROOT_CLASS[res.kind] ?? `${version.charAt(0).toUpperCase()}${version.slice(1)}${res.kind}`;
  return modelOf(name) ? name : undefined;
}

/** What a field of type `type` is in the schema, recording the definitions it names. */
function fieldSchema(type: string, format: string, home: (className: string) => string, seen: Set<string>): Obj {
  const ref = (name: string): Obj => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { type: 'array', items: fieldSchema(array[1] ?? 'any', '', home, seen) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { type: 'object', additionalProperties: fieldSchema(map[1] ?? 'any', '', home, seen) };
  switch (type) {
    case 'string': return { type: 'string', ...(format ? { format } : {}) };
    case 'number': return format === 'int32' || format === 'int64' ? { type: 'integer', format } : { type: 'number', format: format || 'double' };
    case 'boolean': return { type: 'boolean' };
    case 'Date': return { type: 'string', format: 'date-time' };
    case 'IntOrString':
      seen.add(INT_OR_STRING);
      return ref(INT_OR_STRING);
    case 'any': return { type: 'object' };
    default: {
      if (!modelOf(type)) return { type: 'object' };
      if (type === 'V1ObjectMeta') return ref(OBJECT_META_NAME);
      seen.add(type);
      return ref(home(type));
    }
  }
}

function objectSchema(className: string, home: (className: string) => string, seen: Set<string>): Obj {
  const model = modelOf(className);
  const docs = docsOf(className);
  const properties: Obj = {};
  for (const a of model?.getAttributeTypeMap() ?? []) {
    const schema = fieldSchema(a.type, a.format, home, seen);
    const description = docs.fields.get(a.name);
    properties[a.baseName] = description ? { ...schema, description } : schema;
  }
  const out: Obj = { type: 'object', properties };
  if (docs.description) out.description = docs.description;
  const required = docs.required.filter((r) => r in properties);
  if (required.length > 0) out.required = required;
  return out;
}

const cache = new Map<string, KindSchemas | undefined>();

/** The whole schema of a built-in kind, or undefined when client-node has no model of it. */
export function builtinKindSchemas(res: ResourceDef): KindSchemas | undefined {
  const key = `${res.group}/${res.kind}`;
  if (cache.has(key)) return cache.get(key);
  const root = rootClass(res);
  let out: KindSchemas | undefined;
  if (root) {
    const { version } = split(root);
    const kindPrefix = groupPrefix(res.group, version);
    // A type's group: the one its class names, meta's, core's, or else the kind's (client-node does not say).
    const home = (className: string): string => {
      const s = split(className);
      if (META_TYPES.has(s.goName)) return `${META_PREFIX}.${s.goName}`;
      if (s.group) return `${groupPrefix(s.group, s.version)}.${s.goName}`;
      return `${isCore(className) ? groupPrefix('', s.version) : kindPrefix}.${s.goName}`;
    };
    const definitions: Record<string, Obj> = { [INT_OR_STRING]: INT_OR_STRING_SCHEMA };
    const seen = new Set<string>();
    const rootSchema = objectSchema(root, home, seen);
    const done = new Set<string>([INT_OR_STRING]);
    for (let todo = [...seen]; todo.length > 0; todo = [...seen].filter((c) => !done.has(c))) {
      for (const c of todo) {
        done.add(c);
        if (c === INT_OR_STRING) continue;
        definitions[home(c)] = objectSchema(c, home, seen);
      }
    }
    const props = rootSchema.properties as Obj;
    for (const k of ['apiVersion', 'kind', 'metadata']) delete props[k];
    out = { root: rootSchema, definitions };
  }
  cache.set(key, out);
  return out;
}

// Every type a core/v1 kind reaches is core's (the pod, container and volume types a workload
// embeds); the rest of what a kind reaches is its own group's.
const CORE_ROOTS = ['V1Pod', 'V1ReplicationController', 'V1PersistentVolumeClaim', 'V1PersistentVolume', 'V1Service', 'V1Endpoints',
  'V1Secret', 'V1ConfigMap', 'V1ServiceAccount', 'V1Namespace', 'CoreV1Event'];
let coreClasses: ReadonlySet<string> | undefined;

function isCore(className: string): boolean {
  if (!coreClasses) {
    const found = new Set<string>();
    const visit = (c: string): void => {
      if (found.has(c)) return;
      found.add(c);
      for (const a of modelOf(c)?.getAttributeTypeMap() ?? []) {
        for (const m of a.type.matchAll(/[A-Za-z0-9]+/g)) if (modelOf(m[0])) visit(m[0]);
      }
    };
    CORE_ROOTS.forEach(visit);
    coreClasses = found;
  }
  return coreClasses.has(className);
}
