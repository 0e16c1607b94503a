import type { Places } from '../fleet/machine-json.ts';
import type { SeedMachine } from '../fleet/seed.ts';
import { NameRegistry } from './registry.ts';

/** The zones, pools and domains the seed machines and the `domains` option name, with MAAS's ids. */
export function buildPlaces(domains: readonly string[], seeds: readonly SeedMachine[]): Places {
  const zones = new NameRegistry(1);
  for (const s of seeds) zones.add(s.zone ?? 'default');
  zones.add('default');
  // MAAS's default pool has id 0.
  const pools = new NameRegistry(1);
  const poolIds = new NameRegistry(0);
  poolIds.add('default');
  for (const s of seeds) pools.add(s.pool ?? 'default');
  for (const name of pools.names()) poolIds.add(name);
  const domainNames = [...domains, ...seeds.map((s) => s.domain ?? 'maas')];
  const registry = new NameRegistry(0);
  // MAAS's own domain, 'maas', is id 0 and the default whenever it exists.
  if (domainNames.includes('maas')) registry.add('maas');
  for (const d of domainNames) registry.add(d);
  const defaultDomain = registry.has('maas') ? 'maas' : (registry.names()[0] ?? 'maas');
  return { zones, pools: poolIds, domains: registry, defaultDomain };
}
