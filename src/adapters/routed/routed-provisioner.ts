import type { CallArgs, OpResult } from '../../machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../ports/index.ts';
import { invoke } from '../../ports/index.ts';

// One metalfleet, several backends of a kind (one Ironic per data centre, say): a host names its
// backend with a label; each backend keeps its own capacity pool. A label naming no backend is
// a registration error the user can fix, not a crash.
export function createRoutedProvisioner(o: { routes: ReadonlyMap<string, Provisioner>; label: string; fallback?: string }): Provisioner {
  const fallback = o.fallback ?? o.routes.keys().next().value;
  const pick = (host: HostData): Provisioner | string => {
    const name = host.labels?.[o.label] ?? fallback;
    const route = name === undefined ? undefined : o.routes.get(name);
    return route ?? `label ${o.label}=${name ?? ''} names no configured backend (known: ${[...o.routes.keys()].join(', ')})`;
  };
  const forward = (host: HostData, args: CallArgs): Promise<OpResult> => {
    const route = pick(host);
    return typeof route === 'string' ? Promise.resolve({ kind: 'failed', message: route, retryAfterMs: null }) : invoke(route, host, args);
  };
  return {
    name: `routed(${[...o.routes.keys()].join(',')})`,
    requests: () => [...o.routes.values()].flatMap((p) => p.requests?.() ?? []),
    apiVersions: () => [...o.routes.values()].flatMap((p) => p.apiVersions?.() ?? []),
    capacity(host) {
      const route = pick(host);
      return typeof route === 'string' ? { pool: 'unrouted', exempt: true } : route.capacity(host);
    },
    register: forward,
    inspect: forward,
    prepare: forward,
    provision: forward,
    deprovision: forward,
    adopt: forward,
    powerOn: forward,
    powerOff: forward,
    hardwareState: forward,
    detach: forward,
    delete: forward,
    // Whether the chosen backend can is its own affair: invoke() answers for one that cannot.
    service: forward,
    firmware: forward,
  };
}
