import type { DnsResources } from './dns.ts';
import type { Fleet } from './fleet.ts';
import type { Places } from './machine-json.ts';
import { API_PREFIX, machineJson } from './machine-json.ts';
import type { SimUser } from './oauth.ts';
import type { Params } from './params.ts';
import type { TagBook } from './tags.ts';

// The part of the MAAS 2.0 API CAPMAAS uses (capmaas.md §3.2), as handlers keyed by signature:
// (HTTP method, op), op null for the plain CRUD call — OperationsHandlerMixin.dispatch.

export type RouteName = 'machines/' | 'machines/{id}/' | 'dnsresources/' | 'dnsresources/{id}/' | 'tags/' | 'tags/{name}/';

export interface PathMatch {
  readonly route: RouteName;
  readonly id: string | undefined;
  /** From a `/op-<name>` suffix. */
  readonly pathOp: string | undefined;
}

const PATHS: ReadonlyArray<[RegExp, RouteName]> = [
  [/^machines\/(?:op-([^/]+))?$/, 'machines/'],
  [/^machines\/([^/]+)\/(?:op-([^/]+))?$/, 'machines/{id}/'],
  [/^dnsresources\/(?:op-([^/]+))?$/, 'dnsresources/'],
  [/^dnsresources\/([^/]+)\/(?:op-([^/]+))?$/, 'dnsresources/{id}/'],
  [/^tags\/(?:op-([^/]+))?$/, 'tags/'],
  [/^tags\/([^/]+)\/(?:op-([^/]+))?$/, 'tags/{name}/'],
];

export function matchPath(pathname: string): PathMatch | undefined {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const rest = pathname.slice(API_PREFIX.length + 1);
  for (const [pattern, route] of PATHS) {
    const m = pattern.exec(rest);
    if (!m) continue;
    const hasId = route.endsWith('}/');
    const id = hasId ? decodeURIComponent(m[1] ?? '') : undefined;
    const pathOp = hasId ? m[2] : m[1];
    return { route, id, pathOp };
  }
  return undefined;
}

export interface CallContext {
  readonly user: SimUser;
  readonly id: string;
  /** What the handler reads: the query string for GET (and a body, if one was sent), else the body. */
  readonly params: Params;
}

export type Reply = { status: 200; json: unknown } | { status: 204 };

export interface Backend {
  readonly fleet: Fleet;
  readonly dns: DnsResources;
  readonly tags: TagBook;
  readonly places: Places;
}

type Handler = (b: Backend, c: CallContext) => Reply;

const ok = (json: unknown): Reply => ({ status: 200, json });

const SIGNATURES: Record<RouteName, Record<string, Handler>> = {
  'machines/': {
    'GET ': (b, c) => ok(b.fleet.list(c.params).map((m) => machineJson(m, b.places))),
    'POST allocate': (b, c) => ok(machineJson(b.fleet.allocate(c.user, c.params), b.places)),
  },
  'machines/{id}/': {
    'GET ': (b, c) => ok(machineJson(b.fleet.get(c.id), b.places)),
    'PUT ': (b, c) => ok(machineJson(b.fleet.update(c.user, c.id, c.params), b.places)),
    'DELETE ': (b, c) => {
      b.fleet.remove(c.user, c.id);
      return { status: 204 };
    },
    'POST deploy': (b, c) => ok(machineJson(b.fleet.deploy(c.user, c.id, c.params), b.places)),
    'POST release': (b, c) => ok(machineJson(b.fleet.release(c.user, c.id, c.params), b.places)),
    'POST power_on': (b, c) => ok(machineJson(b.fleet.powerOn(c.user, c.id, c.params), b.places)),
    'POST power_off': (b, c) => ok(machineJson(b.fleet.powerOffByRequest(c.user, c.id, c.params), b.places)),
    'POST set_owner_data': (b, c) => ok(machineJson(b.fleet.setOwnerData(c.user, c.id, c.params), b.places)),
  },
  'dnsresources/': {
    'GET ': (b, c) => ok(b.dns.list(c.params)),
    'POST ': (b, c) => ok(b.dns.create(c.user, c.params)),
  },
  'dnsresources/{id}/': {
    'GET ': (b, c) => ok(b.dns.read(c.id)),
    'PUT ': (b, c) => ok(b.dns.update(c.user, c.id, c.params)),
    'DELETE ': (b, c) => {
      b.dns.remove(c.user, c.id);
      return { status: 204 };
    },
  },
  'tags/': {
    'GET ': (b) => ok(b.tags.list()),
    'POST ': (b, c) => ok(b.tags.create(c.user, c.params)),
  },
  'tags/{name}/': {
    'GET ': (b, c) => ok(b.tags.read(c.id)),
    'POST update_nodes': (b, c) => ok(b.tags.updateNodes(c.user, c.id, c.params, (id) => b.fleet.bySystemId(id))),
  },
};

/** The methods a route answers at all; any other gets 405 before dispatch, as in piston. */
export function allowedMethods(route: RouteName): string[] {
  return [...new Set(Object.keys(SIGNATURES[route]).map((k) => k.split(' ')[0] ?? ''))];
}

export function findHandler(route: RouteName, method: string, op: string | undefined): Handler | undefined {
  // An empty op is an op named "", not a missing one.
  if (op === '') return undefined;
  return SIGNATURES[route][`${method} ${op ?? ''}`];
}

/** The route label counts() reports: "POST machines/ op=allocate". */
export function routeLabel(method: string, route: RouteName | undefined, op: string | undefined): string {
  return `${method} ${route ?? '(no route)'}${op === undefined ? '' : ` op=${op}`}`;
}
