// A stand-in for KubeClient in unit tests: objects in a map, merge patches applied as the API
// server applies them (RV precondition, status subresource, deletion when the last finalizer
// goes), every request recorded.
import { KubeCallError } from '../../../src/adapters/kube/errors.ts';
import type { KubeClient } from '../../../src/adapters/kube/kube-client.ts';
import { applyMergePatch, isPlainObject } from '../../../src/adapters/kube/merge-patch.ts';
import type { RawObject } from '../../../src/adapters/kube/raw-object.ts';
import type { ResourceInfo } from '../../../src/adapters/kube/resources.ts';

export interface FakeRequest {
  readonly verb: 'get' | 'patch' | 'delete';
  readonly sub?: 'status';
  readonly key: string;
  readonly body?: Record<string, unknown>;
}

export class FakeServer {
  readonly objects = new Map<string, RawObject>();
  readonly events = new Map<string, Record<string, unknown>>();
  readonly requests: FakeRequest[] = [];
  private rv = 100;
  /** Called before a request is answered; may throw to fail it. */
  before: ((request: FakeRequest) => void) | null = null;

  put(object: Record<string, unknown>): RawObject {
    const o = object as RawObject;
    const stored = { ...o, metadata: { ...o.metadata, resourceVersion: this.nextRv() } } as RawObject;
    this.objects.set(`${o.metadata.namespace}/${o.metadata.name}`, stored);
    return stored;
  }

  /** Someone else writes (status or metadata): the RV moves on. */
  touch(key: string, patch: Record<string, unknown>): RawObject {
    const current = this.objects.get(key)!;
    const next = applyMergePatch(current, patch) as RawObject;
    const stored = { ...next, metadata: { ...next.metadata, resourceVersion: this.nextRv() } } as RawObject;
    this.objects.set(key, stored);
    return stored;
  }

  client(): KubeClient {
    const fake = {
      get: async (_r: ResourceInfo, ns: string, name: string, sub?: 'status') => {
        const key = `${ns}/${name}`;
        this.record({ verb: 'get', key, ...(sub ? { sub } : {}) });
        return this.objects.get(key);
      },
      patch: async (_r: ResourceInfo, ns: string, name: string, body: Record<string, unknown>, sub?: 'status', what = 'patch') => {
        const key = `${ns}/${name}`;
        this.record({ verb: 'patch', key, body, ...(sub ? { sub } : {}) });
        const current = this.objects.get(key);
        if (!current) throw new KubeCallError(what, 404, 'NotFound', 'not found');
        const meta = isPlainObject(body['metadata']) ? body['metadata'] : {};
        if (typeof meta['resourceVersion'] === 'string' && meta['resourceVersion'] !== current.metadata.resourceVersion) {
          throw new KubeCallError(what, 409, 'Conflict', 'the object has been modified');
        }
        const { resourceVersion: _rv, ...metaRest } = meta;
        const effective = sub === 'status' ? { status: body['status'] } : { ...body, metadata: metaRest };
        const next = applyMergePatch(current, effective) as RawObject;
        if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
          this.objects.delete(key);
          return next;
        }
        const stored = { ...next, metadata: { ...next.metadata, resourceVersion: this.nextRv() } } as RawObject;
        this.objects.set(key, stored);
        return stored;
      },
      delete: async (_r: ResourceInfo, ns: string, name: string) => {
        const key = `${ns}/${name}`;
        this.record({ verb: 'delete', key });
        const current = this.objects.get(key);
        if (!current) throw new KubeCallError('delete', 404, 'NotFound', 'not found');
        if ((current.metadata.finalizers ?? []).length === 0) {
          this.objects.delete(key);
          return { kind: 'deleted' as const };
        }
        const stored = { ...current, metadata: { ...current.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', resourceVersion: this.nextRv() } } as RawObject;
        this.objects.set(key, stored);
        return { kind: 'terminating' as const, object: stored };
      },
      createEvent: async (ns: string, event: { metadata: { name: string } }) => {
        this.events.set(`${ns}/${event.metadata.name}`, JSON.parse(JSON.stringify(event)) as Record<string, unknown>);
      },
      patchEvent: async (ns: string, name: string, body: Record<string, unknown>, what: string) => {
        const current = this.events.get(`${ns}/${name}`);
        if (!current) throw new KubeCallError(what, 404, 'NotFound', 'not found');
        this.events.set(`${ns}/${name}`, { ...current, ...body });
      },
    };
    return fake as unknown as KubeClient;
  }

  statusPatches(key: string): FakeRequest[] {
    return this.requests.filter((r) => r.verb === 'patch' && r.sub === 'status' && r.key === key);
  }

  private record(request: FakeRequest): void {
    this.requests.push(request);
    this.before?.(request);
  }

  private nextRv(): string {
    this.rv += 1;
    return String(this.rv);
  }
}
