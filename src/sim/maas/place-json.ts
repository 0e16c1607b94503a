import { API_PREFIX } from './machine-json.ts';
import type { Places } from './machine-json.ts';

// Zones, resource pools and domains as MAAS renders them, inside a machine and on their own.

export function domainJson(name: string, places: Places) {
  const id = places.domains.id(name);
  return {
    authoritative: true,
    ttl: null,
    resource_record_count: 0,
    name,
    id,
    is_default: name === places.defaultDomain,
    resource_uri: `${API_PREFIX}/domains/${id}/`,
  };
}

export function zoneJson(name: string, places: Places) {
  return { id: places.zones.id(name), name, description: '', resource_uri: `${API_PREFIX}/zones/${name}/` };
}

export function poolJson(name: string, places: Places) {
  const id = places.pools.id(name);
  return { id, name, description: name === 'default' ? 'Default pool' : '', resource_uri: `${API_PREFIX}/resourcepool/${id}/` };
}
