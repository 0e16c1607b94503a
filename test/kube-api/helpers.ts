// Shared set-up for the Kubernetes API test server's own tests: the fixture CRDs, one server per
// test, the client-node APIs on it, and a small fetch wrapper for what the client cannot express.
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { ExecutionContext } from 'ava';
import { startKubeApi } from '../support/kube-api/index.ts';
import type { KubeApiOptions, KubeApiServer, KubeObject } from '../support/kube-api/index.ts';

export const CRD_DIR = fileURLToPath(new URL('./fixtures/crds', import.meta.url));
export const GROUP = 'test.metalfleet.io';
export const VERSION = 'v1alpha1';
export const NS = 'ns1';
export const WIDGETS = { group: GROUP, version: VERSION, plural: 'widgets' } as const;
export const GADGETS = { group: GROUP, version: VERSION, plural: 'gadgets' } as const;

export interface Api {
  server: KubeApiServer;
  custom: CustomObjectsApi;
  core: CoreV1Api;
}

/** A server with the fixture CRDs for this test, closed when the test ends. */
export async function withApi(t: ExecutionContext, opts: KubeApiOptions = {}): Promise<Api> {
  const server = await startKubeApi({ crdDir: CRD_DIR, ...opts });
  t.teardown(() => server.close());
  const kc = server.kubeConfig();
  return { server, custom: kc.makeApiClient(CustomObjectsApi), core: kc.makeApiClient(CoreV1Api) };
}

export function widget(name: string, spec: Record<string, unknown> = { size: 1 }, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name, namespace: NS }, spec, ...extra };
}

/** The parsed Status of a failed client-node call (ApiException.body is the raw text). */
export async function failure(p: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: number; body?: string };
    if (typeof err.code === 'number' && typeof err.body === 'string') return { code: err.code, status: JSON.parse(err.body) as Record<string, unknown> };
    throw e;
  }
  throw new Error('expected the call to fail');
}

export interface Raw {
  status: number;
  headers: Headers;
  text: string;
  json: () => Record<string, unknown>;
}

/** A plain HTTP request to the server (a JSON body is serialised; a string is sent as is). */
export async function raw(server: KubeApiServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Raw> {
  const init: RequestInit = { method, headers: { 'Content-Type': contentType } };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(server.url + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

export const widgetsPath = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/widgets`;

export function meta(obj: unknown): Record<string, unknown> {
  return (obj as { metadata: Record<string, unknown> }).metadata;
}
