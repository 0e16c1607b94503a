// The Kubernetes API test server: an in-process HTTP server over the store, with the hooks tests
// use to set up objects, count requests and status writes, and inject faults.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { BUILTIN_RESOURCES } from './builtin.ts';
import { loadCrdDocs, resourceFromCrd } from './crd.ts';
import { startControllers } from './controllers.ts';
import { createMasterService } from './master-service.ts';
import { ensureDefaultServiceAccount } from './service-accounts.ts';
import { directApi } from './direct.ts';
import type { DirectApi, ObjectRef } from './direct.ts';
import { apiVersions, apiGroup, apiGroupList, apiResourceList, VERSION_INFO } from './discovery.ts';
import { apiErrors, KubeApiError } from './errors.ts';
import { encodeOpenApiV2 } from './protobuf.ts';
import { hashOf, openApiV2, openApiV3Document, openApiV3Index } from './openapi.ts';
import { handleResource } from './handlers.ts';
import { serveHealth } from './health.ts';
import { Hooks } from './hooks.ts';
import type { FaultHandle, FaultSpec, RequestFilter, RequestRecord, StatusWrites } from './hooks.ts';
import { sendError, sendJson, sendNotFound } from './http-io.ts';
import { loadKubeConfig, writeKubeconfig } from './kubeconfig.ts';
import { Registry } from './registry.ts';
import { route } from './routes.ts';
import type { Route } from './routes.ts';
import { Store } from './store.ts';
import { decodeObject } from './decode.ts';
import { createObject } from './writes.ts';
import type { WriteContext } from './writes.ts';
import { objectKey, qualifiedResource } from './types.ts';
import type { ResourceDef } from './types.ts';
import { WatchHub } from './watch.ts';
import type { WatchFilter } from './watch.ts';

const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
// What the real server answers with: Go's mime parser refuses the `@` of the Accept form.
const OPENAPI_V2_PROTOBUF_REPLY = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

export interface KubeApiOptions {
  /** Folder(s) of CRD YAML (multi-document files fine; other kinds skipped). */
  crdDir?: string | readonly string[];
  /** CRD objects (apiextensions.k8s.io/v1). */
  crds?: readonly object[];
  /** 0 or unset: a free port on 127.0.0.1. */
  port?: number;
  /** Write events kept for watches and exact lists; older RVs get 410. Default 1000. */
  historyLimit?: number;
  /** A watch without timeoutSeconds ends cleanly after this long. Default 30. */
  watchTimeoutSeconds?: number;
  /**
   * The resourceVersion of a fresh server before any write, as a real apiserver's start-up writes
   * leave it (never 0 there: an informer that lists "0" watches from "any" and gets replays, not
   * 410s). The first write gets the next one; a watch from an RV below it gets 410. Default 0, so
   * that the first write is RV 1 (tests pin RVs).
   */
  startResourceVersion?: number;
  /**
   * `implicit` (default): any namespace takes objects and none is created at start; the CRDs given
   * here are served but not stored as CustomResourceDefinition objects (RVs start at 1 for tests,
   * unless startResourceVersion).
   * `strict` (as kubectl sees a cluster): `default`, `kube-system` and `kube-public` exist, the
   * given CRDs are stored objects, writes into a missing namespace get 404, and writes keep
   * metadata.managedFields (server-side apply conflicts).
   */
  namespaces?: 'implicit' | 'strict';
}

export interface KubeApiServer extends DirectApi {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** A kubeconfig file for this server (removed by close()). */
  readonly kubeconfigPath: string;
  /** A KubeConfig loaded from kubeconfigPath. */
  kubeConfig(): KubeConfig;
  /** The current resourceVersion (the last write's). */
  resourceVersion(): string;

  requests(filter?: RequestFilter): RequestRecord[];
  /** Requests per `METHOD /route/{namespace}/{name}`. */
  requestCounts(): Record<string, number>;
  /** Resolves once `n` requests matching `filter` have been answered (counting from start). */
  waitForRequests(filter: RequestFilter, n?: number, timeoutMs?: number): Promise<RequestRecord[]>;
  onRequest(listener: (r: RequestRecord) => void): () => void;
  /** Requests being handled right now (a watch only until its stream starts). */
  inFlight(filter?: RequestFilter): number;
  /** PUT/PATCH on the object's /status: those that changed it, and all attempts. */
  statusWrites(ref: ObjectRef): StatusWrites;

  /** The next `times` (default 1) matching requests fail with `status`. */
  failNext(spec: FaultSpec): FaultHandle;
  clearFaults(): void;
  /** Forget the event history: a watch or exact list from any earlier RV gets 410. */
  expireHistory(): void;
  /** Destroy open watch connections mid-stream (a network cut); returns how many. */
  dropWatches(filter?: WatchFilter): number;
  /** End open watch streams cleanly (as at their timeout); returns how many. */
  endWatches(filter?: WatchFilter): number;
  openWatches(filter?: WatchFilter): number;
  /** A BOOKMARK now on every open watch that asked for bookmarks. */
  sendBookmarks(): number;
  close(): Promise<void>;
}

export async function startKubeApi(opts: KubeApiOptions = {}): Promise<KubeApiServer> {
  const crds: { crd: Record<string, unknown>; res: ResourceDef }[] = [];
  const dirs = opts.crdDir === undefined ? [] : typeof opts.crdDir === 'string' ? [opts.crdDir] : opts.crdDir;
  for (const dir of dirs) crds.push(...(await loadCrdDocs(dir)));
  (opts.crds ?? []).forEach((crd, i) => crds.push({ crd: crd as Record<string, unknown>, res: resourceFromCrd(crd, `crds[${i}]`) }));
  const strict = opts.namespaces === 'strict';
  const registry = new Registry([...BUILTIN_RESOURCES, ...crds.map((c) => c.res)]);
  const startRv = opts.startResourceVersion ?? 0;
  if (!Number.isSafeInteger(startRv) || startRv < 0) throw new Error(`startKubeApi: startResourceVersion must be a whole number ≥ 0, not ${startRv}`);
  const store = new Store(opts.historyLimit ?? 1000, strict, strict, startRv);
  const stopControllers = startControllers(store, registry);
  if (strict) seed(store, registry, crds.map((c) => c.crd));
  const hub = new WatchHub(store, opts.watchTimeoutSeconds ?? 30);
  const hooks = new Hooks();
  const resolve = (name: string): ResourceDef => registry.resolve(name).res;
  let hostPort = '127.0.0.1:0';

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const r = route(method, url, registry);
    const info = describe(r, method, url);
    const done = hooks.begin(info);
    let changed = false;
    let injected = false;
    try {
      const fault = hooks.takeFault(info);
      if (fault) {
        injected = true;
        req.resume();
        throw fault;
      }
      if (r.type === 'notFound' && url.pathname.startsWith('/openapi/')) serveOpenApi(req, res, url);
      else if (r.type === 'notFound' && serveHealth(url, res)) req.resume();
      else if (r.type === 'notFound') sendNotFound(res);
      else if (r.type === 'discovery') sendJson(res, 200, discovery(r));
      else changed = (await handleResource({ store, hub }, r, req, res, url)).changed;
    } catch (e) {
      const err = e instanceof KubeApiError ? e : apiErrors.internal((e as Error).message);
      if (!res.headersSent) sendError(res, err);
      else res.destroy();
    } finally {
      if (r.type === 'resource' && r.subresource === 'status' && (r.verb === 'update' || r.verb === 'patch')) {
        hooks.countStatusWrite(statusKey(r.res, r.namespace, r.name), changed);
      }
      done();
      hooks.record({ ...info, query: url.search.slice(1), route: `${method} ${r.type === 'resource' ? r.template : url.pathname}`, code: res.statusCode, injected });
    }
  };

  const serveOpenApi = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const parts = url.pathname.split('/').filter((p) => p !== '');
    if (parts[1] === 'v2' && parts.length === 2) {
      // kubectl (client-go OpenAPISchema) takes only protobuf here.
      const accept = req.headers.accept ?? '';
      const doc = openApiV2(registry);
      if (accept.includes(OPENAPI_V2_PROTOBUF) || !/application\/json|\*\/\*/.test(accept) && accept !== '') {
        const bytes = encodeOpenApiV2(doc);
        res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_REPLY, 'Content-Length': bytes.length, Etag: `"${hashOf(doc)}"` });
        res.end(bytes);
        return;
      }
      sendJson(res, 200, doc);
      return;
    }
    if (parts[1] === 'v3' && parts.length === 2) {
      sendJson(res, 200, openApiV3Index(registry));
      return;
    }
    if (parts[1] === 'v3' && (parts[2] === 'api' || parts[2] === 'apis')) {
      const [group, version] = parts[2] === 'api' ? ['', parts[3] ?? ''] : [parts[3] ?? '', parts[4] ?? ''];
      const expected = parts[2] === 'api' ? 4 : 5;
      const doc = parts.length === expected ? openApiV3Document(registry, group, version) : undefined;
      if (doc) {
        const immutable = url.searchParams.get('hash') === hashOf(doc);
        sendJson(res, 200, doc, { 'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private', Etag: `"${hashOf(doc)}"` });
        return;
      }
    }
    sendNotFound(res);
  };

  const discovery = (r: Extract<Route, { type: 'discovery' }>): object => {
    switch (r.what) {
      case 'version': return VERSION_INFO;
      case 'api': return apiVersions(hostPort);
      case 'apis': return apiGroupList(registry);
      case 'group': return apiGroup(registry, r.group);
      case 'groupVersion': return apiResourceList(registry, r.group, r.version);
    }
  };

  const server = createServer((req, res) => void serve(req, res));
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  hostPort = `127.0.0.1:${port}`;
  // Once the port is known, as the real server's reconciler does once it serves.
  if (strict) createMasterService(store, registry, '127.0.0.1', port);
  const url = `http://${hostPort}`;
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-kube-api-'));
  const kubeconfigPath = await writeKubeconfig(dir, url);
  const direct = directApi(store, registry);
  let closed: Promise<void> | undefined;

  return {
    ...direct,
    url,
    port,
    kubeconfigPath,
    kubeConfig: () => loadKubeConfig(kubeconfigPath),
    resourceVersion: () => String(store.currentRv()),
    requests: (filter) => hooks.requests(filter),
    requestCounts: () => hooks.requestCounts(),
    waitForRequests: (filter, n = 1, timeoutMs = 5_000) => hooks.waitForRequests(filter, n, timeoutMs),
    onRequest(listener) {
      hooks.events.on('request', listener);
      return () => hooks.events.off('request', listener);
    },
    inFlight: (filter) => hooks.inFlight(filter),
    statusWrites(ref) {
      const { res } = registry.resolve(ref.resource);
      return hooks.statusWrites(statusKey(res, res.namespaced ? ref.namespace ?? 'default' : '', ref.name));
    },
    failNext: (spec) => hooks.failNext(spec),
    clearFaults: () => hooks.clearFaults(),
    expireHistory: () => store.expireHistory(),
    dropWatches: (filter) => hub.drop(filter, resolve),
    endWatches: (filter) => hub.end(filter, resolve),
    openWatches: (filter) => hub.count(filter, resolve),
    sendBookmarks: () => hub.bookmarkAll(),
    close() {
      closed ??= (async () => {
        stopControllers();
        hub.closeAll();
        server.closeAllConnections();
        await new Promise<void>((ok) => server.close(() => ok()));
        await rm(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

// What a fresh cluster has: the three system namespaces, then the CRDs installed, then the
// namespaces' `default` ServiceAccounts.
function seed(store: Store, registry: Registry, crds: readonly Record<string, unknown>[]): void {
  const ctx = (resource: string): WriteContext => ({ store, ...registry.resolve(resource), namespace: '', dryRun: false });
  for (const name of ['default', 'kube-system', 'kube-public']) {
    createObject(ctx('namespaces'), decodeObject(ctx('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, '', 'Ignore').obj);
  }
  const crdCtx = ctx('customresourcedefinitions');
  for (const crd of crds) createObject(crdCtx, decodeObject(crdCtx, structuredClone(crd), '', 'Ignore').obj);
  // After the CRDs, so that their RVs stay 4…n.
  for (const name of ['default', 'kube-system', 'kube-public']) ensureDefaultServiceAccount(store, registry, name);
}

function statusKey(res: ResourceDef, namespace: string, name: string): string {
  return `${qualifiedResource(res)}/${objectKey(namespace, name)}`;
}

function describe(r: Route, method: string, url: URL): Omit<RequestRecord, 'seq' | 'code' | 'injected' | 'route' | 'query'> {
  const base = { method, path: url.pathname, group: '', version: '', resource: '', subresource: '', namespace: '', name: '' };
  if (r.type === 'notFound') return { ...base, verb: 'unknown' };
  if (r.type === 'discovery') return { ...base, verb: 'discovery', group: r.group, version: r.version };
  return {
    ...base, verb: r.verb ?? 'unknown', group: r.res.group, version: r.version.name, resource: r.res.plural,
    subresource: r.subresource, namespace: r.namespace, name: r.name,
  };
}
