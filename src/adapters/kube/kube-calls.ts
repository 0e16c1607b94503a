import { KubeCallError, toKubeCallError } from './errors.ts';
import type { KubeVerb } from './permissions.ts';
import { ADAPTER_PERMISSIONS } from './permissions.ts';
import type { ResourceInfo } from './resources.ts';

/** One RBAC permission: what a single API call needs. */
export interface Permission {
  readonly apiGroup: string;
  /** `plural` or `plural/subresource`. */
  readonly resource: string;
  readonly verb: KubeVerb;
}

export function permissionFor(r: ResourceInfo, verb: KubeVerb, subresource?: 'status'): Permission {
  return { apiGroup: r.group, resource: subresource ? `${r.plural}/${subresource}` : r.plural, verb };
}

export const EVENT_CREATE: Permission = { apiGroup: '', resource: 'events', verb: 'create' };
export const EVENT_PATCH: Permission = { apiGroup: '', resource: 'events', verb: 'patch' };

export function formatPermission(p: Permission): string {
  return `${p.verb} ${p.apiGroup === '' ? 'core' : p.apiGroup}/${p.resource}`;
}

export function isDeclared(p: Permission): boolean {
  return ADAPTER_PERMISSIONS.some((d) => d.apiGroup === p.apiGroup && d.resource === p.resource && d.verbs.includes(p.verb));
}

export interface KubeCallsOptions {
  /** Requests in flight at once (watches not counted); the rest wait their turn. Default 32. */
  readonly maxInFlight?: number;
}

/**
 * The one door every API call of the adapter goes through, naming the permission it needs. A
 * permission missing from ADAPTER_PERMISSIONS (so from the deployed ClusterRole) fails here as
 * the API server would fail it, 403, before a request is made; `used` lists what was needed, so
 * tests can hold the code and the declared RBAC to each other.
 */
export class KubeCalls {
  private readonly usedSet = new Set<string>();
  private readonly maxInFlight: number;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(options: KubeCallsOptions = {}) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 32);
  }

  /** Runs `fn` (one request) under `permission`; failures become KubeCallError naming `what`. */
  async call<T>(permission: Permission, what: string, fn: () => Promise<T>): Promise<T> {
    this.use(permission, what);
    await this.slot();
    try {
      return await fn();
    } catch (error) {
      throw toKubeCallError(what, error, permission);
    } finally {
      this.release();
    }
  }

  /** Records a permission used by a request the client makes itself (an informer's watch). */
  use(permission: Permission, what: string): void {
    if (!isDeclared(permission)) {
      throw new KubeCallError(what, 403, 'Undeclared', `${formatPermission(permission)} is not in ADAPTER_PERMISSIONS (src/adapters/kube/permissions.ts), so the deployed ClusterRole does not grant it`);
    }
    this.usedSet.add(formatPermission(permission));
  }

  /** Permissions used so far, formatted as "verb group/resource". */
  get used(): ReadonlySet<string> {
    return this.usedSet;
  }

  private slot(): Promise<void> {
    if (this.inFlight < this.maxInFlight) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => {
      this.inFlight += 1;
      resolve();
    }));
  }

  private release(): void {
    this.inFlight -= 1;
    this.waiting.shift()?.();
  }
}
