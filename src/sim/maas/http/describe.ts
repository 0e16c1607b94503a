import { createHash } from 'node:crypto';
import type { Resource } from '../backend.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';

// describe/: the API description the `maas` CLI and python-libmaas build their commands and objects
// from (maasserver/api/doc.py _describe_api). Each resource is named after MAAS's handler class and
// its path uses MAAS's parameter names, so a client finds "MachineHandler" with params
// ["system_id"] at /MAAS/api/2.0/machines/{system_id}/, whatever the simulator calls it inside.

/** MAAS's handler class and URI parameters per path shape ('{}' stands for any parameter). */
const MAAS_HANDLERS: Readonly<Record<string, readonly [string, ...string[]]>> = {
  'version/': ['VersionHandler'],
  'maas/': ['MaasHandler'],
  'account/': ['AccountHandler'],
  'users/': ['UsersHandler'],
  'users/{}/': ['UserHandler', 'username'],
  'machines/': ['MachinesHandler'],
  'machines/{}/': ['MachineHandler', 'system_id'],
  'nodes/': ['NodesHandler'],
  'nodes/{}/': ['NodeHandler', 'system_id'],
  'nodes/{}/blockdevices/': ['BlockDevicesHandler', 'system_id'],
  'nodes/{}/blockdevices/{}/': ['BlockDeviceHandler', 'system_id', 'id'],
  'nodes/{}/blockdevices/{}/partitions/': ['PartitionsHandler', 'system_id', 'device_id'],
  'nodes/{}/blockdevices/{}/partition/{}': ['PartitionHandler', 'system_id', 'device_id', 'id'],
  'nodes/{}/interfaces/': ['InterfacesHandler', 'system_id'],
  'nodes/{}/interfaces/{}/': ['InterfaceHandler', 'system_id', 'id'],
  'devices/': ['DevicesHandler'],
  'devices/{}/': ['DeviceHandler', 'system_id'],
  'events/': ['EventsHandler'],
  'tags/': ['TagsHandler'],
  'tags/{}/': ['TagHandler', 'name'],
  'zones/': ['ZonesHandler'],
  'zones/{}/': ['ZoneHandler', 'name'],
  'resourcepools/': ['ResourcePoolsHandler'],
  'resourcepool/{}/': ['ResourcePoolHandler', 'id'],
  'domains/': ['DomainsHandler'],
  'domains/{}/': ['DomainHandler', 'id'],
  'dnsresources/': ['DNSResourcesHandler'],
  'dnsresources/{}/': ['DNSResourceHandler', 'id'],
  'dnsresourcerecords/': ['DNSResourceRecordsHandler'],
  'dnsresourcerecords/{}/': ['DNSResourceRecordHandler', 'id'],
  'fabrics/': ['FabricsHandler'],
  'fabrics/{}/': ['FabricHandler', 'id'],
  'fabrics/{}/vlans/': ['VlansHandler', 'fabric_id'],
  'fabrics/{}/vlans/{}/': ['VlanHandler', 'fabric_id', 'vid'],
  'vlans/{}/': ['VlanHandler', 'vlan_id'],
  'spaces/': ['SpacesHandler'],
  'spaces/{}/': ['SpaceHandler', 'id'],
  'subnets/': ['SubnetsHandler'],
  'subnets/{}/': ['SubnetHandler', 'id'],
  'ipaddresses/': ['IPAddressesHandler'],
  'ipranges/': ['IPRangesHandler'],
  'ipranges/{}/': ['IPRangeHandler', 'id'],
  'static-routes/': ['StaticRoutesHandler'],
  'static-routes/{}/': ['StaticRouteHandler', 'id'],
  'boot-resources/': ['BootResourcesHandler'],
  'boot-resources/{}/': ['BootResourceHandler', 'id'],
};

// piston's CRUD names for an action without an op.
const RESTFUL_NAMES: Readonly<Record<string, string>> = { GET: 'read', POST: 'create', PUT: 'update', DELETE: 'delete' };

export interface DescribedAction {
  readonly method: string;
  readonly name: string;
  readonly doc: string;
  readonly op: string | null;
  readonly restful: boolean;
}

export interface DescribedHandler {
  readonly actions: DescribedAction[];
  readonly doc: string;
  readonly name: string;
  readonly params: string[];
  readonly path: string;
  readonly uri: string;
}

export interface ApiDescription {
  readonly doc: string;
  readonly hash: string;
  readonly handlers: DescribedHandler[];
  readonly resources: Array<{ anon: DescribedHandler | null; auth: DescribedHandler | null; name: string }>;
}

/** A handler name for a path MAAS's table lacks: 'foo-bars/{}/' → 'FooBarHandler', 'foo-bars/' → 'FooBarsHandler'. */
function derivedHandler(shape: string): readonly [string, ...string[]] {
  const segments = shape.split('/').filter((s) => s !== '');
  const params = segments.filter((s) => s === '{}').map((_s, i, all) => (i === all.length - 1 ? 'id' : `id${i}`));
  const literal = [...segments].reverse().find((s) => s !== '{}') ?? 'api';
  const base = literal
    .split(/[-_]/)
    .map((w) => (w[0] ?? '').toUpperCase() + w.slice(1))
    .join('');
  const item = segments[segments.length - 1] === '{}';
  return [`${item ? base.replace(/s$/, '') : base}Handler`, ...params];
}

function describeHandler(resource: Resource, siteUrl: string): DescribedHandler {
  const shape = resource.name.replace(/\{[^}]*\}/g, '{}');
  const [name, ...params] = MAAS_HANDLERS[shape] ?? derivedHandler(shape);
  let n = 0;
  const template = shape.replace(/\{\}/g, () => `{${params[n++] ?? 'id'}}`);
  const path = `${API_PREFIX}/${template}`;
  const actions = Object.keys(resource.signatures)
    .map((signature): DescribedAction => {
      const [method = 'GET', op = ''] = signature.split(' ');
      const restful = op === '';
      return { method, name: restful ? (RESTFUL_NAMES[method] ?? method.toLowerCase()) : op, doc: `${method} ${path}${restful ? '' : ` op=${op}`}`, op: restful ? null : op, restful };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // siteUrl ends in /MAAS and path starts with /MAAS: the absolute URI joins them once.
  return { actions, doc: `${name} of the simulated MAAS.`, name, params, path, uri: `${siteUrl.replace(/\/MAAS$/, '')}${path}` };
}

/** The whole description, with URIs made absolute against `siteUrl` (http://host:port/MAAS). */
export function describeApi(resources: readonly Resource[], siteUrl: string): ApiDescription {
  const described = resources
    .map((r) => {
      const handler = describeHandler(r, siteUrl);
      return r.anonymous ? { anon: handler, auth: null, name: handler.name } : { anon: null, auth: handler, name: handler.name };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const handlers = [...described.flatMap((r) => (r.anon ? [r.anon] : [])), ...described.flatMap((r) => (r.auth ? [r.auth] : []))];
  // MAAS hashes the relative description; the simulator hashes what is independent of the host.
  const hash = createHash('sha1')
    .update(JSON.stringify(described.map((r) => [r.name, (r.anon ?? r.auth)?.path, (r.anon ?? r.auth)?.actions])))
    .digest('hex');
  return { doc: 'MAAS API', hash, handlers, resources: described };
}
