// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` on get and list (what `kubectl get`
// asks for): a meta.k8s.io/v1 Table with the CRD's additionalPrinterColumns (jsonPath per row, as
// apiextensions' tableconvertor does) or the built-in kinds' columns from pkg/printers/internalversion.
import { jsonPathValues } from './jsonpath.ts';
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

/** The first value a printer column's JSONPath finds (filters like `[?(@.type=="Ready")]` too); undefined if none. */
export function jsonPathValue(obj: unknown, path: string): unknown {
  const [first] = jsonPathValues(obj, path);
  return first === null ? undefined : first;
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
    case 'integer': return typeof value === 'number' ? Math.trunc(value) : null;
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
    case 'configmaps':
      return { columns: [NAME, col('Data', 'string'), AGE], cells: (o) => [str(metaOf(o).name), keys(o.data) + keys(o.binaryData), age(o)] };
    case 'serviceaccounts':
      return { columns: [NAME, col('Secrets', 'string'), AGE], cells: (o) => [str(metaOf(o).name), list(o.secrets).length, age(o)] };
    case 'deployments':
      return {
        columns: [NAME, col('Ready', 'string'), col('Up-to-date', 'string'), col('Available', 'string'), AGE,
          col('Containers', 'string', '', 1), col('Images', 'string', '', 1), col('Selector', 'string', '', 1)],
        cells: (o) => {
          const spec = obj(o.spec);
          const status = obj(o.status);
          const containers = list(obj(obj(spec.template).spec).containers);
          // The API server defaults replicas to 1; this server stores the kind as sent.
          const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
          return [str(metaOf(o).name), `${num(status.readyReplicas)}/${replicas}`, num(status.updatedReplicas), num(status.availableReplicas), age(o),
            containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(','), formatSelector(spec.selector) || '<none>'];
        },
      };
    case 'statefulsets':
      // printStatefulSet: ready of desired replicas; the containers and images on -o wide.
      return {
        columns: [NAME, col('Ready', 'string', 'Number of the pod with ready state'), AGE,
          col('Containers', 'string', 'Names of each container in the template.', 1), col('Images', 'string', 'Images referenced by each container in the template.', 1)],
        cells: (o) => {
          const spec = obj(o.spec);
          const containers = list(obj(obj(spec.template).spec).containers);
          const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
          return [str(metaOf(o).name), `${num(obj(o.status).readyReplicas)}/${replicas}`, age(o),
            containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
        },
      };
    case 'endpointslices':
      // printEndpointSlice: at most three ports and addresses, then how many more.
      return {
        columns: [NAME, col('AddressType', 'string'), col('Ports', 'string'), col('Endpoints', 'string'), AGE],
        cells: (o) => {
          const ports = list(o.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : '*'));
          const addresses = list(o.endpoints).flatMap((e) => strings(e.addresses));
          return [str(metaOf(o).name), str(o.addressType), upToThree(ports), upToThree(addresses), age(o)];
        },
      };
    case 'controllerrevisions':
      // printControllerRevision: the controlling owner as kind.group/name.
      return {
        columns: [NAME, col('Controller', 'string'), col('Revision', 'integer'), AGE],
        cells: (o) => {
          const owner = list(metaOf(o).ownerReferences).find((r) => r.controller === true);
          const group = owner ? str(owner.apiVersion).split('/').slice(0, -1).join('/') : '';
          const controller = owner ? `${str(owner.kind).toLowerCase()}${group ? `.${group}` : ''}/${str(owner.name)}` : '<none>';
          return [str(metaOf(o).name), controller, num(o.revision), age(o)];
        },
      };
    case 'services':
      return {
        columns: [NAME, col('Type', 'string'), col('Cluster-IP', 'string'), col('External-IP', 'string'), col('Port(s)', 'string'), AGE, col('Selector', 'string', '', 1)],
        cells: (o) => {
          const spec = obj(o.spec);
          const ports = list(spec.ports).map((p) => `${num(p.port)}${num(p.nodePort) ? `:${num(p.nodePort)}` : ''}/${str(p.protocol) || 'TCP'}`);
          const selector = Object.entries(obj(spec.selector)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${str(v)}`);
          return [str(metaOf(o).name), str(spec.type) || 'ClusterIP', strings(spec.clusterIPs)[0] ?? (str(spec.clusterIP) || '<none>'), externalIp(o),
            ports.length > 0 ? ports.join(',') : '<none>', age(o), selector.length > 0 ? selector.join(',') : '<none>'];
        },
      };
    case 'clusterroles':
      return { columns: [NAME, col('Created At', 'date')], cells: (o) => [str(metaOf(o).name), str(metaOf(o).creationTimestamp)] };
    case 'clusterrolebindings':
      return {
        columns: [NAME, col('Role', 'string'), AGE, col('Users', 'string', '', 1), col('Groups', 'string', '', 1), col('ServiceAccounts', 'string', '', 1)],
        cells: (o) => {
          const subjects = list(o.subjects);
          const named = (kind: string): string => subjects.filter((s) => s.kind === kind).map((s) => str(s.name)).join(', ');
          const accounts = subjects.filter((s) => s.kind === 'ServiceAccount').map((s) => `${str(s.namespace)}/${str(s.name)}`).join(', ');
          return [str(metaOf(o).name), `${str(obj(o.roleRef).kind)}/${str(obj(o.roleRef).name)}`, age(o), named('User'), named('Group'), accounts];
        },
      };
    case 'poddisruptionbudgets':
      return {
        columns: [NAME, col('Min Available', 'string'), col('Max Unavailable', 'string'), col('Allowed Disruptions', 'integer'), AGE],
        cells: (o) => {
          const spec = obj(o.spec);
          const or = (v: unknown): string => (v === undefined || v === null ? 'N/A' : String(v));
          return [str(metaOf(o).name), or(spec.minAvailable), or(spec.maxUnavailable), num(obj(o.status).disruptionsAllowed), age(o)];
        },
      };
    case 'networkpolicies':
      // printNetworkPolicy: the pod selector as metav1.FormatLabelSelector writes it.
      return {
        columns: [NAME, col('Pod-Selector', 'string'), AGE],
        cells: (o) => [str(metaOf(o).name), formatSelector(obj(o.spec).podSelector) || '<none>', age(o)],
      };
    case 'validatingwebhookconfigurations':
    case 'mutatingwebhookconfigurations':
      return { columns: [NAME, col('Webhooks', 'integer'), AGE], cells: (o) => [str(metaOf(o).name), list(o.webhooks).length, age(o)] };
    default:
      return { columns: [NAME, col('Age', 'date', AGE_DESCRIPTION)], cells: (o) => [str(metaOf(o).name), age(o)] };
  }
}

const AGE = col('Age', 'string', AGE_DESCRIPTION);

function upToThree(items: readonly string[]): string {
  if (items.length === 0) return '<unset>';
  return items.length > 3 ? `${items.slice(0, 3).join(',')} + ${items.length - 3} more...` : items.join(',');
}
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const keys = (v: unknown): number => Object.keys(obj(v)).length;
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** metav1.FormatLabelSelector: `a=b,c in (d,e)`, requirements sorted; '' for an empty one. */
export function formatSelector(v: unknown): string {
  const sel = obj(v);
  const parts = Object.entries(obj(sel.matchLabels)).map(([k, x]) => ({ key: k, text: `${k}=${str(x)}` }));
  for (const e of list(sel.matchExpressions)) {
    const key = str(e.key);
    const op = str(e.operator);
    const values = strings(e.values).sort().join(',');
    parts.push({ key, text: op === 'In' || op === 'NotIn' ? `${key} ${op.toLowerCase()} (${values})` : op === 'DoesNotExist' ? `!${key}` : key });
  }
  return parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((p) => p.text).join(',');
}

// getServiceExternalIP: external IPs, the load balancer's once it has them, or the external name.
function externalIp(o: Obj): string {
  const spec = obj(o.spec);
  const external = strings(spec.externalIPs);
  switch (str(spec.type) || 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = list(obj(obj(o.status).loadBalancer).ingress).map((i) => str(i.ip) || str(i.hostname)).filter((x) => x !== '');
      const all = [...lb, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
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
