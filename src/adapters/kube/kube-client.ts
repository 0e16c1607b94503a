import type { CoreV1Event, KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeCalls, Permission } from './kube-calls.ts';
import { EVENT_CREATE, EVENT_PATCH, permissionFor } from './kube-calls.ts';
import type { KubeVerb } from './permissions.ts';
import type { ResourceInfo, ResourceName } from './resources.ts';
import { RESOURCES } from './resources.ts';
import type { RawObject } from './raw-object.ts';
import { parseRaw } from './raw-object.ts';
import { KubeCallError } from './errors.ts';
import { LEASE_PERMISSIONS } from './leader-election.ts';

/**
 * The calls the adapter makes on each resource, and so the permissions it needs: informers list
 * and watch everything; objects the controllers write are read back after a conflict (main and
 * status), patched (metadata) and status-patched; only hosts are deleted (a user's `delete`).
 */
export const CALLS_BY_RESOURCE: Readonly<Record<ResourceName, readonly (readonly [KubeVerb, 'status'?])[]>> = {
  BareMetalHost: [['list'], ['watch'], ['get'], ['get', 'status'], ['patch'], ['patch', 'status'], ['delete']],
  MaasMachine: [['list'], ['watch'], ['get'], ['get', 'status'], ['patch'], ['patch', 'status']],
  MaasCluster: [['list'], ['watch'], ['get'], ['get', 'status'], ['patch'], ['patch', 'status']],
  Machine: [['list'], ['watch']],
  Cluster: [['list'], ['watch']],
  // A host's companions: created and written by its actor (HardwareData, FirmwareSchema,
  // HostFirmwareSettings, HostFirmwareComponents: actors/host/companions.ts), deleted with the host
  // (HardwareData, and the settings and components it owns: hostGone).
  HardwareData: [['list'], ['watch'], ['get'], ['create'], ['patch'], ['delete']],
  FirmwareSchema: [['list'], ['watch'], ['get'], ['create'], ['patch']],
  HostFirmwareSettings: [['list'], ['watch'], ['get'], ['get', 'status'], ['create'], ['patch'], ['patch', 'status'], ['delete']],
  HostFirmwareComponents: [['list'], ['watch'], ['get'], ['get', 'status'], ['create'], ['patch'], ['patch', 'status'], ['delete']],
  HostUpdatePolicy: [['list'], ['watch']],
  // BMO's claim on BMC Secrets: a label and a finalizer, by merge patch (secret-claim.ts).
  Secret: [['list'], ['watch'], ['patch']],
};

/** Every permission the adapter's code can use: what the ClusterRole must grant. */
export function adapterCallPermissions(): Permission[] {
  const out: Permission[] = [];
  for (const [name, calls] of Object.entries(CALLS_BY_RESOURCE) as [ResourceName, readonly (readonly [KubeVerb, 'status'?])[]][]) {
    for (const [verb, sub] of calls) out.push(permissionFor(RESOURCES[name], verb, sub));
  }
  return [...out, EVENT_CREATE, EVENT_PATCH, ...LEASE_PERMISSIONS];
}

function allowed(r: ResourceInfo, verb: KubeVerb, sub?: 'status'): Permission {
  const calls = CALLS_BY_RESOURCE[r.name];
  if (!calls.some(([v, s]) => v === verb && s === sub)) {
    throw new KubeCallError(`${verb} ${r.plural}${sub ? `/${sub}` : ''}`, 403, 'NotWritten', `metalfleet does not ${verb} ${r.kind} objects${sub ? ` (${sub})` : ''}`);
  }
  return permissionFor(r, verb, sub);
}

export type DeleteOutcome = { readonly kind: 'terminating'; readonly object: RawObject } | { readonly kind: 'deleted' };

export interface KubeClientOptions {
  /** Objects per list page (limit). Default 500, client-go's reflector page size. */
  readonly listPageSize?: number;
}

export const DEFAULT_LIST_PAGE_SIZE = 500;

// A typed list (Secrets) names the token `_continue`; a custom objects list is raw JSON.
function continueOf(list: KubernetesListObject<KubernetesObject>): string | undefined {
  const meta = (list.metadata ?? {}) as { continue?: unknown; _continue?: unknown };
  const token = meta.continue ?? meta._continue;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * The Kubernetes API as the adapter uses it, over @kubernetes/client-node's generated clients.
 * Each method is one request through KubeCalls, named by its permission and its object.
 */
export class KubeClient {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly pageSize: number;

  constructor(readonly config: KubeConfig, readonly calls: KubeCalls, options: KubeClientOptions = {}) {
    this.pageSize = Math.max(1, Math.floor(options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE));
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.core = config.makeApiClient(CoreV1Api);
  }

  /**
   * The informer's list: every object of the resource, in one namespace or all, in pages of
   * `listPageSize` (limit/continue), as client-go's reflector lists. Every page is of the first
   * page's snapshot, whose resourceVersion the list carries. A continue token that expired
   * meanwhile (410) is answered, as client-go's pager does, by one full list without paging:
   * pages of two snapshots would miss or resurrect objects (reference/kube-api.md §2).
   */
  async list(r: ResourceInfo, namespace?: string): Promise<KubernetesListObject<KubernetesObject>> {
    const what = `listing ${r.plural}${namespace ? ` in ${namespace}` : ''}`;
    const items: KubernetesObject[] = [];
    let first: KubernetesListObject<KubernetesObject> | undefined;
    let token: string | undefined;
    do {
      let page: KubernetesListObject<KubernetesObject>;
      try {
        page = await this.listPage(r, namespace, what, this.pageSize, token);
      } catch (error) {
        if (token !== undefined && error instanceof KubeCallError && error.status === 410) return this.listPage(r, namespace, `${what} (again, whole: the continue token expired)`);
        throw error;
      }
      first ??= page;
      items.push(...(page.items ?? []));
      token = continueOf(page);
    } while (token !== undefined);
    const { continue: _c, _continue: _tc, remainingItemCount: _r, ...metadata } = (first.metadata ?? {}) as Record<string, unknown>;
    return { ...first, metadata, items } as KubernetesListObject<KubernetesObject>;
  }

  private listPage(r: ResourceInfo, namespace: string | undefined, what: string, limit?: number, token?: string): Promise<KubernetesListObject<KubernetesObject>> {
    const paging = { ...(limit !== undefined ? { limit } : {}), ...(token !== undefined ? { _continue: token } : {}) };
    return this.calls.call(allowed(r, 'list'), what, async () => {
      if (r.name === 'Secret') {
        return namespace ? this.core.listNamespacedSecret({ namespace, ...paging }) : this.core.listSecretForAllNamespaces(paging);
      }
      const base = { group: r.group, version: r.version, plural: r.plural, ...paging };
      const list: unknown = namespace ? await this.custom.listNamespacedCustomObject({ ...base, namespace }) : await this.custom.listClusterCustomObject(base);
      return list as KubernetesListObject<KubernetesObject>;
    });
  }

  /** The watch an informer opens; the client makes it, this records its permission. */
  watching(r: ResourceInfo, namespace?: string): void {
    this.calls.use(allowed(r, 'watch'), `watching ${r.plural}${namespace ? ` in ${namespace}` : ''}`);
  }

  /** GET of an object (or its status subresource, which returns the whole object); undefined when gone. */
  async get(r: ResourceInfo, namespace: string, name: string, sub?: 'status'): Promise<RawObject | undefined> {
    const what = `reading ${r.kind} ${namespace}/${name}${sub ? ` (${sub})` : ''}`;
    try {
      const body: unknown = await this.calls.call(allowed(r, 'get', sub), what, () => {
        const args = { group: r.group, version: r.version, plural: r.plural, namespace, name };
        return sub ? this.custom.getNamespacedCustomObjectStatus(args) : this.custom.getNamespacedCustomObject(args);
      });
      return object(what, body);
    } catch (error) {
      if (error instanceof KubeCallError && error.notFound) return undefined;
      throw error;
    }
  }

  /** A JSON merge patch of the object or of its status subresource; the stored object comes back. */
  async patch(r: ResourceInfo, namespace: string, name: string, body: Record<string, unknown>, sub?: 'status', what = `patching ${r.kind} ${namespace}/${name}`): Promise<RawObject> {
    const result: unknown = await this.calls.call(allowed(r, 'patch', sub), what, () => {
      const args = { group: r.group, version: r.version, plural: r.plural, namespace, name, body };
      return sub ? this.custom.patchNamespacedCustomObjectStatus(args, mergePatch) : this.custom.patchNamespacedCustomObject(args, mergePatch);
    });
    return object(what, result);
  }

  /** POST of a new object; the stored object comes back (a KubeCallError with status 409 when the name is taken). */
  async create(r: ResourceInfo, namespace: string, body: Record<string, unknown>, what: string): Promise<RawObject> {
    const result: unknown = await this.calls.call(allowed(r, 'create'), what, () =>
      this.custom.createNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace, body }));
    return object(what, result);
  }

  /**
   * DELETE: with finalizers the server marks the object and returns it; without, it removes it
   * and returns a Status (reference/kube-api.md §7).
   */
  async delete(r: ResourceInfo, namespace: string, name: string): Promise<DeleteOutcome> {
    const what = `deleting ${r.kind} ${namespace}/${name}`;
    const result: unknown = await this.calls.call(allowed(r, 'delete'), what, () =>
      this.custom.deleteNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace, name }));
    if (typeof result === 'object' && result !== null && (result as { kind?: unknown }).kind === 'Status') return { kind: 'deleted' };
    return { kind: 'terminating', object: object(what, result) };
  }

  /** A JSON merge patch of a Secret's metadata (the claim); the stored Secret comes back. */
  async patchSecret(namespace: string, name: string, body: Record<string, unknown>): Promise<RawObject> {
    const what = `patching Secret ${namespace}/${name}`;
    const result: unknown = await this.calls.call(allowed(RESOURCES.Secret, 'patch'), what, () => this.core.patchNamespacedSecret({ namespace, name, body }, mergePatch));
    return object(what, result);
  }

  async createEvent(namespace: string, event: CoreV1Event, what: string): Promise<void> {
    await this.calls.call(EVENT_CREATE, what, () => this.core.createNamespacedEvent({ namespace, body: event }));
  }

  async patchEvent(namespace: string, name: string, body: Record<string, unknown>, what: string): Promise<void> {
    await this.calls.call(EVENT_PATCH, what, () => this.core.patchNamespacedEvent({ namespace, name, body }, mergePatch));
  }
}

function object(what: string, body: unknown): RawObject {
  const parsed = parseRaw(body);
  if (!parsed.ok) throw new KubeCallError(what, 500, 'BadResponse', `the API server answered with something that is not an object (${parsed.problems.join('; ')})`);
  return parsed.value;
}

