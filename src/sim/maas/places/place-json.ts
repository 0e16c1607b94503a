import { API_PREFIX } from '../fleet/machine-json.ts';
import type { Places } from '../fleet/machine-json.ts';

// Zones, resource pools and domains as MAAS renders them, inside a machine and on their own
// (DISPLAYED_ZONE_FIELDS, DISPLAYED_RESOURCEPOOL_FIELDS, DISPLAYED_DOMAIN_FIELDS + resource_uri).

/** `resourceRecordCount`: the domain's DNS resource addresses and records (the list and read answers count them). */
export function domainJson(name: string, places: Places, resourceRecordCount = 0) {
  const entry = places.domains.entry(name);
  const id = places.domains.id(name);
  return {
    authoritative: entry?.authoritative ?? true,
    ttl: entry?.ttl ?? null,
    resource_record_count: resourceRecordCount,
    name,
    id,
    is_default: name === places.defaultDomain,
    resource_uri: `${API_PREFIX}/domains/${id}/`,
  };
}

export function zoneJson(name: string, places: Places) {
  const description = places.zones.entry(name)?.description ?? '';
  return { id: places.zones.id(name), name, description, resource_uri: `${API_PREFIX}/zones/${encodeURIComponent(name)}/` };
}

export function poolJson(name: string, places: Places) {
  const id = places.pools.id(name);
  // MAAS creates the default pool (id 0) with this description.
  const description = places.pools.entry(name)?.description ?? (id === 0 ? 'Default pool' : '');
  return { id, name, description, resource_uri: `${API_PREFIX}/resourcepool/${id}/` };
}
