// The `as=PartialObjectMetadata` and `as=PartialObjectMetadataList` transforms of
// handlers/response.go, which metadata clients (client-go's metadata package, metadata informers)
// ask for: each object becomes `{kind: PartialObjectMetadata, apiVersion: meta.k8s.io/v1,
// metadata}`; a list keeps its list metadata. The list kind asked of one object, or the single
// kind of a list, is a 406 naming the Go type the handler held.
import { fail } from './errors.ts';
import type { KubeApiError } from './errors.ts';
import { isObj } from './types.ts';
import type { Obj, ResourceDef } from './types.ts';

export type PartialKind = 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface PartialTarget {
  readonly kind: PartialKind;
  /** meta.k8s.io/v1 or meta.k8s.io/v1beta1, as asked. */
  readonly apiVersion: string;
}

/** The first acceptable Accept clause decides: a plain JSON or a Table clause first means no transform. */
export function partialTarget(accept: string | undefined): PartialTarget | undefined {
  for (const clause of (accept ?? '').split(',')) {
    const params = new Map(clause.split(';').slice(1).map((p) => p.trim().split('=') as [string, string]));
    const as = params.get('as');
    const v = params.get('v');
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && params.get('g') === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1')) {
      return { kind: as, apiVersion: `meta.k8s.io/${v}` };
    }
    if (as === 'Table' || (clause.split(';')[0]?.trim() === 'application/json' && !params.has('as'))) return undefined;
  }
  return undefined;
}

export function asPartial(obj: Obj, apiVersion: string): Obj {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: isObj(obj.metadata) ? obj.metadata : {} };
}

export function asPartialList(items: readonly Obj[], listMeta: Obj, apiVersion: string): Obj {
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata: listMeta, items: items.map((o) => asPartial(o, apiVersion)) };
}

// %T of what the handler holds: unstructured for custom resources, the internal Go type otherwise.
function goType(res: ResourceDef, list: boolean): string {
  if (!res.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = res.group === '' ? 'core' : res.group.split('.')[0] ?? res.group;
  return `*${pkg}.${res.kind}${list ? 'List' : ''}`;
}

/** The 406 when the kind asked for does not fit (a list wanted of one object, or the reverse). */
export function mismatch(res: ResourceDef, target: PartialTarget, isList: boolean): KubeApiError | undefined {
  if (isList && target.kind === 'PartialObjectMetadata') {
    return fail(406, 'NotAcceptable', `you requested PartialObjectMetadata, but the requested object is a list (${goType(res, true)})`);
  }
  if (!isList && target.kind === 'PartialObjectMetadataList') {
    return fail(406, 'NotAcceptable', `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(res, false)})`);
  }
  return undefined;
}
