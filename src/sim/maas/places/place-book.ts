import { APPLICATION_JSON, badRequest, forbidden, MaasApiError, METHOD_RESERVED_ADMIN, notFound, validationError } from '../http/api-error.ts';
import type { Places } from '../fleet/machine-json.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { pyJsonDumps } from '../http/py-format.ts';
import type { NameRegistry } from './registry.ts';

// Zones, resource pools and domains: create, rename, describe, delete, as MAAS 3.6's
// api/zones.py, api/resourcepools.py and api/domains.py do (forms ZoneForm, ResourcePoolForm,
// DomainForm). The things placed in them (machines, devices, DNS resources) are reached through
// `PlacedThings`, so this file knows no fleet.

/** Whatever refers to a zone, pool or domain by name. */
export interface PlacedThings {
  /** Machines and devices (both carry zone, pool and domain names). */
  nodes(): Array<{ zone: string; pool?: string; domain: string; owner: string | null }>;
  renameDomain(from: string, to: string): void;
  dropDomain(name: string): void;
}

// MODEL_NAME_VALIDATOR (zones, pools) and the domain name spec.
const MODEL_NAME = /^\w[ \w-]*$/;
const DOMAIN_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

// maasserver.sequence.INT_MAX: the SOA serial's bound.
const INT_MAX = 2 ** 31 - 1;

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function requireAdmin(user: SimUser): void {
  if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
}

// A new name for a zone or pool: required on create, optional on update; unique; MODEL_NAME.
function checkModelName(registry: NameRegistry, name: string | undefined, current: string | undefined, label: string): string | undefined {
  if (name === undefined && current !== undefined) return undefined;
  if (name === undefined || name === '') throw validationError({ name: ['This field is required.'] });
  if (name.length > 256) throw validationError({ name: ['Ensure this value has at most 256 characters (it has ' + String(name.length) + ').'] });
  if (!MODEL_NAME.test(name)) throw validationError({ name: ['Enter a valid value.'] });
  if (name !== current && registry.has(name)) throw validationError({ name: [`${label} with this Name already exists.`] });
  return name;
}

export function listZones(places: Places): string[] {
  return places.zones.names().sort(byName);
}

export function findZone(places: Places, name: string): string {
  if (!places.zones.has(name)) throw notFound('Zone');
  return name;
}

// POST /zones/ (admin_method).
export function createZone(user: SimUser, places: Places, params: Params): string {
  requireAdmin(user);
  const name = checkModelName(places.zones, params.get('name'), undefined, 'Physical zone') ?? '';
  places.zones.add(name);
  setDescription(places.zones, name, params);
  return name;
}

// PUT /zones/{name}/ (admin_method, before the 404). A rename carries the machines along (a foreign key).
export function updateZone(user: SimUser, places: Places, name: string, params: Params, things: PlacedThings): string {
  requireAdmin(user);
  findZone(places, name);
  const newName = checkModelName(places.zones, params.get('name'), name, 'Physical zone');
  setDescription(places.zones, name, params);
  if (newName === undefined || newName === name) return name;
  places.zones.rename(name, newName);
  moveNodes(things, 'zone', name, newName);
  return newName;
}

function moveNodes(things: PlacedThings, field: 'zone' | 'pool', from: string, to: string): void {
  for (const node of things.nodes()) if (node[field] === from) node[field] = to;
}

// DELETE /zones/{name}/ (admin_method): a missing zone is 204 all the same; the default zone is
// refused (Zone.delete); machines in it go to the default zone (on_delete=SET_DEFAULT).
export function deleteZone(user: SimUser, places: Places, name: string, things: PlacedThings): void {
  requireAdmin(user);
  if (!places.zones.has(name)) return;
  const fallback = places.zones.defaultName();
  if (name === fallback || fallback === undefined) throw badRequest('This zone is the default zone, it cannot be deleted.');
  moveNodes(things, 'zone', name, fallback);
  places.zones.remove(name);
}

export function listPools(places: Places): string[] {
  return places.pools.names().sort(byName);
}

// A pool by id or name (get_resource_pool_or_404's specifiers).
export function findPool(places: Places, specifier: string): string {
  const name = places.pools.resolve(specifier.trim());
  if (name === undefined) throw notFound('ResourcePool');
  return name;
}

// POST /resourcepools/: the form's permission_create, which only admins hold (PermissionDenied, no text).
export function createPool(user: SimUser, places: Places, params: Params): string {
  if (!user.admin) throw forbidden();
  const name = checkModelName(places.pools, params.get('name'), undefined, 'Resource pool') ?? '';
  places.pools.add(name);
  setDescription(places.pools, name, params);
  return name;
}

// PUT /resourcepool/{id}/: 404 before the permission check.
export function updatePool(user: SimUser, places: Places, specifier: string, params: Params, things: PlacedThings): string {
  const name = findPool(places, specifier);
  if (!user.admin) throw forbidden();
  const newName = checkModelName(places.pools, params.get('name'), name, 'Resource pool');
  setDescription(places.pools, name, params);
  if (newName === undefined || newName === name) return name;
  places.pools.rename(name, newName);
  moveNodes(things, 'pool', name, newName);
  return newName;
}

// DELETE /resourcepool/{id}/: ResourcePool.delete refuses the default pool and a pool with
// machines (the machines' foreign key is PROTECT): a ValidationError, 400 text.
export function deletePool(user: SimUser, places: Places, specifier: string, things: PlacedThings): void {
  const name = findPool(places, specifier);
  if (!user.admin) throw forbidden();
  if (places.pools.id(name) === 0 || name === places.pools.defaultName()) throw badRequest('This is the default pool, it cannot be deleted.');
  if (things.nodes().some((n) => n.pool === name)) throw badRequest('Pool has machines in it, it cannot be deleted.');
  places.pools.remove(name);
}

export function listDomains(places: Places): string[] {
  return places.domains.names().sort((a, b) => places.domains.id(a) - places.domains.id(b));
}

export function findDomain(places: Places, specifier: string): string {
  const name = places.domains.resolve(specifier.trim());
  if (name === undefined) throw notFound('Domain');
  return name;
}

// POST /domains/ (admin_method): name, authoritative, ttl.
export function createDomain(user: SimUser, places: Places, params: Params): string {
  requireAdmin(user);
  const name = checkDomainName(places, params.get('name'), undefined) ?? '';
  const ttl = readTtl(params);
  const authoritative = readNullBool(params, 'authoritative');
  places.domains.add(name);
  const entry = places.domains.entry(name);
  if (entry) {
    if (ttl !== undefined) entry.ttl = ttl;
    if (authoritative !== undefined) entry.authoritative = authoritative;
  }
  return name;
}

// PUT /domains/{id}/: 404, then NodePermission.admin (403 without text).
export function updateDomain(user: SimUser, places: Places, specifier: string, params: Params, things: PlacedThings): string {
  const name = findDomain(places, specifier);
  if (!user.admin) throw forbidden();
  const newName = checkDomainName(places, params.get('name'), name);
  const ttl = readTtl(params);
  const authoritative = readNullBool(params, 'authoritative');
  const entry = places.domains.entry(name);
  if (entry) {
    if (ttl !== undefined) entry.ttl = ttl;
    if (authoritative !== undefined) entry.authoritative = authoritative;
  }
  if (newName === undefined || newName === name) return name;
  places.domains.rename(name, newName);
  for (const node of things.nodes()) if (node.domain === name) node.domain = newName;
  things.renameDomain(name, newName);
  if (places.defaultDomain === name) setDefaultDomainName(places, newName);
  return newName;
}

// POST /domains/{id}/ op=set_default: unallocated nodes on the old default follow to the new one.
export function setDefaultDomain(user: SimUser, places: Places, specifier: string, things: PlacedThings): string {
  const name = findDomain(places, specifier);
  if (!user.admin) throw forbidden();
  const previous = places.defaultDomain;
  for (const node of things.nodes()) if (node.domain === previous && node.owner === null) node.domain = name;
  setDefaultDomainName(places, name);
  return name;
}

// DELETE /domains/{id}/: the default is refused (Domain.delete); its DNS resources go with it.
// Machines hold their domain PROTECTed: MAAS fails such a delete, so the simulator refuses it.
export function deleteDomain(user: SimUser, places: Places, specifier: string, things: PlacedThings): void {
  const name = findDomain(places, specifier);
  if (!user.admin) throw forbidden();
  if (name === places.defaultDomain) throw badRequest('This domain is the default domain, it cannot be deleted.');
  if (things.nodes().some((n) => n.domain === name)) throw badRequest(`Domain ${name} has nodes in it, it cannot be deleted.`);
  things.dropDomain(name);
  places.domains.remove(name);
}

// POST /domains/ op=set_serial (admin_method). The simulator serves no zone files, so the serial
// is only checked; MAAS's errors here are plain strings, not lists.
export function setSerial(user: SimUser, params: Params): void {
  requireAdmin(user);
  const text = params.get('serial');
  const fail = (message: string) => new MaasApiError(400, pyJsonDumps({ serial: message }), APPLICATION_JSON);
  if (text === undefined) throw fail('Missing parameter');
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw fail('Expected a serial number');
  const serial = Number(text.trim());
  if (serial === 0 || serial > INT_MAX) throw fail(`Expected a serial number between 1 and ${INT_MAX}`);
}

function setDefaultDomainName(places: Places, name: string): void {
  // Places is built in server.ts as a plain object whose defaultDomain the type marks readonly
  // for readers; set_default is the one writer.
  Object.assign(places, { defaultDomain: name });
}

function setDescription(registry: NameRegistry, name: string, params: Params): void {
  const description = params.get('description');
  const entry = registry.entry(name);
  if (description !== undefined && entry) entry.description = description;
}

function checkDomainName(places: Places, raw: string | undefined, current: string | undefined): string | undefined {
  if (raw === undefined && current !== undefined) return undefined;
  // clean_name drops one trailing dot.
  const name = (raw ?? '').replace(/\.$/, '');
  if (name === '') throw validationError({ name: ['This field is required.'] });
  if (name.length > 255) throw validationError({ name: ['Domain name length cannot exceed 255 characters.'] });
  if (!DOMAIN_NAME.test(name)) {
    const invalid = name.replace(/[a-zA-Z0-9.-]*/g, '') !== '';
    throw validationError({ name: [invalid ? 'Domain name contains invalid characters.' : `Invalid domain name: ${name}.`] });
  }
  if (name !== current && places.domains.has(name)) throw validationError({ name: ['Domain with this Name already exists.'] });
  return name;
}

// DomainForm.ttl: IntegerField(min_value=1, max_value=604800, required=False); "" clears it.
function readTtl(params: Params): number | null | undefined {
  const text = params.get('ttl');
  if (text === undefined) return undefined;
  if (text.trim() === '') return null;
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw validationError({ ttl: ['Enter a whole number.'] });
  const ttl = Number(text.trim());
  if (ttl < 1) throw validationError({ ttl: ['Ensure this value is greater than or equal to 1.'] });
  if (ttl > 604800) throw validationError({ ttl: ['Ensure this value is less than or equal to 604800.'] });
  return ttl;
}

// NullBooleanField: true/false words, anything else is "unknown" (left as it was).
function readNullBool(params: Params, key: string): boolean | undefined {
  const text = params.get(key)?.trim().toLowerCase();
  if (text === undefined) return undefined;
  if (['true', '1', 'on', 'yes'].includes(text)) return true;
  if (['false', '0', 'off', 'no'].includes(text)) return false;
  return undefined;
}
