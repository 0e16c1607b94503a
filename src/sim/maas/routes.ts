import { BOOT_RESOURCE_RESOURCES } from './api/boot-resources.ts';
import { DNS_RESOURCES } from './api/dns.ts';
import { EVENT_RESOURCES } from './api/events.ts';
import { FILE_RESOURCES } from './api/files.ts';
import { IP_ADDRESS_RESOURCES } from './api/ipaddresses.ts';
import { IP_RANGE_RESOURCES } from './api/ipranges.ts';
import { MACHINE_RESOURCES } from './api/machines.ts';
import { NODE_RESOURCES } from './api/nodes.ts';
import { META_RESOURCES } from './api/meta.ts';
import { NETWORK_RESOURCES } from './api/network.ts';
import { PLACE_RESOURCES } from './api/places.ts';
import { TAG_RESOURCES } from './api/tags.ts';
import type { Handler, Resource } from './backend.ts';
import { API_PREFIX } from './fleet/machine-json.ts';

// Each area of the API lives in its own file under api/; this joins them and finds the handler
// for a request by path, method and op.

const RESOURCES: readonly Resource[] = [
  ...META_RESOURCES,
  ...MACHINE_RESOURCES,
  ...NODE_RESOURCES,
  ...DNS_RESOURCES,
  ...TAG_RESOURCES,
  ...PLACE_RESOURCES,
  ...NETWORK_RESOURCES,
  ...IP_ADDRESS_RESOURCES,
  ...IP_RANGE_RESOURCES,
  ...EVENT_RESOURCES,
  ...BOOT_RESOURCE_RESOURCES,
  ...FILE_RESOURCES,
];

/** Every resource of the API, in matching order: describe/ lists them. */
export function resources(): readonly Resource[] {
  return RESOURCES;
}

export interface PathMatch {
  readonly resource: Resource;
  readonly id: string | undefined;
  /** From a `/op-<name>` suffix. */
  readonly pathOp: string | undefined;
}

export function matchPath(pathname: string): PathMatch | undefined {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const rest = pathname.slice(API_PREFIX.length + 1);
  for (const resource of RESOURCES) {
    const m = resource.pattern.exec(rest);
    if (!m) continue;
    const id = resource.hasId ? decodeURIComponent(m[1] ?? '') : undefined;
    const pathOp = resource.hasId ? m[2] : m[1];
    return { resource, id, pathOp };
  }
  return undefined;
}

/** The methods a resource answers at all; any other gets 405 before dispatch, as in piston. */
export function allowedMethods(resource: Resource): string[] {
  return [...new Set(Object.keys(resource.signatures).map((k) => k.split(' ')[0] ?? ''))];
}

export function findHandler(resource: Resource, method: string, op: string | undefined): Handler | undefined {
  // An empty op is an op named "", not a missing one.
  if (op === '') return undefined;
  return resource.signatures[`${method} ${op ?? ''}`];
}

/** The route label counts() reports: "POST machines/ op=allocate". */
export function routeLabel(method: string, resource: Resource | undefined, op: string | undefined): string {
  return `${method} ${resource?.name ?? '(no route)'}${op === undefined ? '' : ` op=${op}`}`;
}
