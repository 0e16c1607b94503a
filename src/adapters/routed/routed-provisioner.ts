import type { CallArgs, OpResult } from '../../machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../ports/index.ts';
import { invoke } from '../../ports/index.ts';
import { passThrough } from '../../ports/pass-through.ts';

// One metalfleet, several backends of a kind (one Ironic per data centre, say): a host names its
// backend with a label; each backend keeps its own capacity pool. A label naming no backend is
// a registration error the user can fix, not a crash.
export function createRoutedProvisioner(o: { routes: ReadonlyMap<string, Provisioner>; label: string; fallback?: string }): Provisioner {
  const fallback = o.fallback ?? o.routes.keys().next().value;
  const pick = (host: HostData): Provisioner | string => {
    const name = host.labels?.[o.label] ?? fallback;
    const route = name === undefined ? undefined : o.routes.get(name);
    return route ?? unrouted(o.label, name ?? '', [...o.routes.keys()]);
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

function unrouted(label: string, name: string, known: readonly string[]): string {
  return `label ${label}=${name} names no configured backend (known: ${known.join(', ')})`;
}

// Every call that takes HostData and an operation's arguments.
const OPERATIONS = ['register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete', 'service', 'firmware'] as const;

/**
 * The one backend a node serves, called directly, except for a host whose label names another:
 * that host is refused as the router refuses it (a registration error the user can fix), never
 * driven by the wrong backend. Everything else (its name, close, requests, an optional method it
 * lacks) is the backend's own, called on the backend itself.
 */
export function labelChecked<P extends Provisioner>(p: P, o: { route: string; label: string }): P {
  const refusal = (host: HostData): string | null => {
    const name = host.labels?.[o.label];
    return name === undefined || name === o.route ? null : unrouted(o.label, name, [o.route]);
  };
  const methods = new Map<PropertyKey, unknown>();
  methods.set('capacity', (host: HostData) => (refusal(host) === null ? p.capacity(host) : { pool: 'unrouted', exempt: true }));
  for (const name of OPERATIONS) {
    const call = p[name] as ((host: HostData, args: CallArgs) => Promise<OpResult>) | undefined;
    // An optional call the backend lacks stays absent: invoke() answers for it.
    if (typeof call !== 'function') continue;
    methods.set(name, (host: HostData, args: CallArgs): Promise<OpResult> => {
      const refused = refusal(host);
      return refused === null ? call.call(p, host, args) : Promise.resolve({ kind: 'failed', message: refused, retryAfterMs: null });
    });
  }
  return passThrough(p, methods);
}
