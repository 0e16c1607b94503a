// Request URLs to what they address, as apiserver's RequestInfoFactory reads them (kube-api.md §1):
// discovery paths, resource paths with optional namespace, name and subresource, legacy /watch/.
import type { Registry } from './registry.ts';
import type { ResourceDef, VersionDef } from './types.ts';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export type Route =
  | { readonly type: 'discovery'; readonly what: 'api' | 'apis' | 'version' | 'group' | 'groupVersion'; readonly group: string; readonly version: string }
  | {
    readonly type: 'resource';
    readonly res: ResourceDef;
    readonly version: VersionDef;
    readonly namespace: string;
    readonly name: string;
    readonly subresource: string;
    readonly verb: Verb | undefined;
    /** e.g. `/apis/metal3.io/v1alpha1/namespaces/{namespace}/baremetalhosts/{name}/status` */
    readonly template: string;
  }
  /** Plain-text `404 page not found`. */
  | { readonly type: 'notFound' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Go's bool query parameters: anything but `0` or `false` is true, even an empty value. */
export function queryFlag(value: string | null): boolean {
  return value !== null && !/^(0|false)$/i.test(value);
}

export function route(method: string, url: URL, registry: Registry): Route {
  const parts = url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  const notFound = { type: 'notFound' } as const;
  let group = '';
  let version: string;
  let rest: string[];
  let prefix: string;
  if (parts[0] === 'version' && parts.length === 1) return { type: 'discovery', what: 'version', group: '', version: '' };
  if (parts[0] === 'api') {
    if (parts.length === 1) return { type: 'discovery', what: 'api', group: '', version: '' };
    if (parts[1] !== 'v1') return notFound;
    version = 'v1';
    if (parts.length === 2) return { type: 'discovery', what: 'groupVersion', group: '', version };
    rest = parts.slice(2);
    prefix = '/api/v1';
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) return { type: 'discovery', what: 'apis', group: '', version: '' };
    group = parts[1] as string;
    if (parts.length === 2) return registry.all().some((r) => r.group === group) ? { type: 'discovery', what: 'group', group, version: '' } : notFound;
    version = parts[2] as string;
    if (!registry.hasGroupVersion(group, version)) return notFound;
    if (parts.length === 3) return { type: 'discovery', what: 'groupVersion', group, version };
    rest = parts.slice(3);
    prefix = `/apis/${group}/${version}`;
  } else {
    return notFound;
  }

  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1] as string;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string)) rest = rest.slice(2);
  }
  const [plural, name = '', subresource = '', ...more] = rest;
  if (!plural || more.length > 0) return notFound;
  const found = registry.find(group, version, plural);
  if (!found) return notFound;
  const { res } = found;
  if (res.builtin === 'namespaces') namespace = '';

  let verb: Verb | undefined;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = legacyWatch || (!name && queryFlag(url.searchParams.get('watch'))) ? 'watch' : name ? 'get' : 'list';
      break;
    case 'POST': verb = 'create'; break;
    case 'PUT': verb = 'update'; break;
    case 'PATCH': verb = 'patch'; break;
    case 'DELETE': verb = name ? 'delete' : 'deletecollection'; break;
    default: verb = undefined;
  }
  // A namespaced resource without a namespace is served only for list and watch (and the
  // reverse never): anything else falls through to the 404 handler.
  if (res.namespaced && !namespace && verb !== 'list' && verb !== 'watch') return notFound;
  if (!res.namespaced && namespace) return notFound;

  const template = [
    prefix,
    legacyWatch ? '/watch' : '',
    namespace ? '/namespaces/{namespace}' : '',
    `/${plural}`,
    name ? '/{name}' : '',
    subresource ? `/${subresource}` : '',
  ].join('');
  return { type: 'resource', res, version: found.version, namespace, name, subresource, verb, template };
}
