// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` on get and list (what `kubectl get`
// asks for): a meta.k8s.io/v1 Table with the CRD's additionalPrinterColumns (jsonPath per row, as
// apiextensions' tableconvertor does) or the built-in kinds' columns from pkg/printers/internalversion.
import { isObj, metaOf, str } from './types.ts';
import type { Obj, PrinterColumn, ResourceDef, VersionDef } from './types.ts';

interface Column {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

const NAME_DESCRIPTION = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const col = (name: string, type: string, description = '', priority = 0, format = ''): Column => ({ name, type, format, description, priority });
const NAME = col('Name', 'string', NAME_DESCRIPTION, 0, 'name');

/** Whether the Accept header asks for a meta.k8s.io Table (v1, or v1beta1 served as v1). */
export function wantsTable(accept: string | undefined): boolean {
  for (const clause of (accept ?? '').split(',')) {
    const params = new Map(clause.split(';').slice(1).map((p) => p.trim().split('=') as [string, string]));
    if (params.get('as') === 'Table' && params.get('g') === 'meta.k8s.io' && (params.get('v') === 'v1' || params.get('v') === 'v1beta1')) return true;
    // The first acceptable clause wins: a plain JSON clause before any Table clause means JSON.
    if (clause.split(';')[0]?.trim() === 'application/json' && !params.has('as')) return false;
  }
  return false;
}

/** duration.HumanDuration, as the printers write ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(obj: Obj): string {
  const t = Date.parse(str(metaOf(obj).creationTimestamp));
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

/** A simple JSONPath (`.a.b`, `.a[0]`, `.a['k']`), as CRD printer columns allow; undefined if absent. */
export function jsonPathValue(obj: unknown, path: string): unknown {
  const tokens = [...path.replace(/^\{|\}$/g, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]|\[['"]([^'"]+)['"]\]/g)];
  let node = obj;
  for (const t of tokens) {
    if (t[2] !== undefined) node = Array.isArray(node) ? node[Number(t[2])] : undefined;
    else node = isObj(node) ? node[(t[1] ?? t[3]) as string] : undefined;
    if (node === undefined || node === null) return undefined;
  }
  return node;
}

// cellForJSONValue plus the `string` case, which prints the value as JSONPath would.
function crdCell(c: PrinterColumn, value: unknown): unknown {
  if (value === undefined) return null;
  switch (c.type) {
    case 'string': return typeof value === 'string' ? value : JSON.stringify(value);
    case 'date': {
      const t = typeof value === 'string' ? Date.parse(value) : NaN;
      return Number.isNaN(t) ? null : humanDuration(Date.now() - t);
    }
    case 'integer': return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'number': return typeof value === 'number' ? value : null;
    case 'boolean': return typeof value === 'boolean' ? value : null;
    default: return null;
  }
}

function builtinColumns(res: ResourceDef): { columns: Column[]; cells: (o: Obj) => unknown[] } {
  switch (res.builtin) {
    case 'secrets':
      return {
        columns: [NAME, col('Type', 'string'), col('Data', 'string'), col('Age', 'string')],
        cells: (o) => [str(metaOf(o).name), str(o.type), isObj(o.data) ? Object.keys(o.data).length : 0, age(o)],
      };
    case 'namespaces':
      return {
        columns: [NAME, col('Status', 'string', 'The status of the namespace'), col('Age', 'string')],
        cells: (o) => [str(metaOf(o).name), isObj(o.status) ? str(o.status.phase) : '', age(o)],
      };
    case 'leases':
      return {
        columns: [NAME, col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), col('Age', 'string')],
        cells: (o) => [str(metaOf(o).name), isObj(o.spec) ? str(o.spec.holderIdentity) : '', age(o)],
      };
    case 'customresourcedefinitions':
      return {
        columns: [NAME, col('Created At', 'date')],
        cells: (o) => [str(metaOf(o).name), str(metaOf(o).creationTimestamp)],
      };
    case 'events':
      return {
        columns: [col('Last Seen', 'string'), col('Type', 'string'), col('Reason', 'string'), col('Object', 'string'), col('Message', 'string'), { ...NAME, priority: 1 }],
        cells: (o) => {
          const involved = isObj(o.involvedObject) ? o.involvedObject : {};
          const last = str(o.lastTimestamp) || str(o.eventTime) || str(metaOf(o).creationTimestamp);
          return [last ? humanDuration(Date.now() - Date.parse(last)) : '<unknown>', str(o.type), str(o.reason),
            `${str(involved.kind).toLowerCase()}/${str(involved.name)}`, str(o.message), str(metaOf(o).name)];
        },
      };
    default:
      return { columns: [NAME, col('Age', 'date', AGE_DESCRIPTION)], cells: (o) => [str(metaOf(o).name), age(o)] };
  }
}

function converter(res: ResourceDef, version: VersionDef): { columns: Column[]; cells: (o: Obj) => unknown[] } {
  if (res.builtin) return builtinColumns(res);
  // A CRD without additionalPrinterColumns is defaulted to one Age column.
  const printer = version.printerColumns && version.printerColumns.length > 0
    ? version.printerColumns
    : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: AGE_DESCRIPTION }];
  return {
    columns: [NAME, ...printer.map((c) => col(c.name, c.type, c.description ?? '', c.priority ?? 0, c.format ?? ''))],
    cells: (o) => [str(metaOf(o).name), ...printer.map((c) => crdCell(c, jsonPathValue(o, c.jsonPath)))],
  };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The Table for `objects` (already presented in the request's version). */
export function toTable(res: ResourceDef, version: VersionDef, objects: readonly Obj[], listMeta: Obj, include: IncludeObject): Obj {
  const { columns, cells } = converter(res, version);
  const rows = objects.map((o) => {
    const row: Obj = { cells: cells(o) };
    if (include === 'Object') row.object = o;
    else if (include === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: metaOf(o) };
    return row;
  });
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions: columns, rows };
}

export function includeObject(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
