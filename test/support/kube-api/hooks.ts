// What tests observe and inject without HTTP: every request with its verb, route and answer; the
// status writes per object; injected failures for the next matching requests; waiting for "N
// requests like this".
import { EventEmitter } from 'node:events';
import { failure, KubeApiError } from './errors.ts';
import type { StatusBody, StatusDetails } from './errors.ts';
import type { Verb } from './routes.ts';

export interface RequestRecord {
  /** 1, 2, 3 … in arrival order. */
  readonly seq: number;
  readonly method: string;
  /** The URL path without the query. */
  readonly path: string;
  /** The query string without `?`. */
  readonly query: string;
  /** `get`, `list`, `watch`, … or `discovery`; `unknown` for a 404 path. */
  readonly verb: Verb | 'discovery' | 'unknown';
  readonly group: string;
  readonly version: string;
  /** The plural, or '' for discovery. */
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** `METHOD /path/with/{namespace}/and/{name}` (the key of requestCounts()). */
  readonly route: string;
  /** The HTTP status sent (a watch: 200 once the stream starts). */
  readonly code: number;
  /** The failure came from failNext(). */
  readonly injected: boolean;
}

export interface RequestFilter {
  readonly method?: string;
  readonly verb?: RequestRecord['verb'];
  /** The plural. */
  readonly resource?: string;
  /** '' for the main endpoint, 'status' for /status. */
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** Matched against the path (a string: the path contains it). */
  readonly path?: RegExp | string;
  readonly code?: number;
}

export interface FaultSpec extends RequestFilter {
  /** HTTP status to answer with, e.g. 500, 409, 429, 503. */
  readonly status: number;
  /** How many matching requests fail; default 1. */
  readonly times?: number;
  readonly message?: string;
  readonly reason?: string;
  /** For 429/503/504: the Retry-After header and details.retryAfterSeconds (default 1). */
  readonly retryAfterSeconds?: number;
}

export interface FaultHandle {
  /** How many requests this fault has failed so far. */
  readonly fired: number;
  /** Stop injecting (what already fired stays fired). */
  cancel(): void;
}

export interface StatusWrites {
  /** PUT/PATCH on /status that changed the object (the RV moved). */
  readonly changed: number;
  /** Every PUT/PATCH on /status, including refused and injected-failure ones. */
  readonly attempts: number;
}

export function matchesFilter(r: Omit<RequestRecord, 'seq' | 'code' | 'injected' | 'route' | 'query'> & { code?: number }, f: RequestFilter): boolean {
  if (f.method !== undefined && f.method.toUpperCase() !== r.method) return false;
  if (f.verb !== undefined && f.verb !== r.verb) return false;
  if (f.resource !== undefined && f.resource !== r.resource) return false;
  if (f.subresource !== undefined && f.subresource !== r.subresource) return false;
  if (f.namespace !== undefined && f.namespace !== r.namespace) return false;
  if (f.name !== undefined && f.name !== r.name) return false;
  if (f.code !== undefined && f.code !== r.code) return false;
  if (f.path !== undefined && !(typeof f.path === 'string' ? r.path.includes(f.path) : f.path.test(r.path))) return false;
  return true;
}

interface Fault {
  readonly spec: FaultSpec;
  remaining: number;
  fired: number;
}

const DEFAULT_FAULTS: Record<number, { reason: string; message: string }> = {
  400: { reason: 'BadRequest', message: 'injected fault' },
  401: { reason: 'Unauthorized', message: 'Unauthorized' },
  403: { reason: 'Forbidden', message: 'forbidden: injected fault' },
  404: { reason: 'NotFound', message: 'the server could not find the requested resource' },
  409: { reason: 'Conflict', message: 'Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again' },
  410: { reason: 'Expired', message: 'The resourceVersion for the provided list is too old.' },
  422: { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' },
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  503: { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' },
  504: { reason: 'Timeout', message: 'Timeout: request did not complete within requested timeout - context deadline exceeded' },
};

// The body the real server would send for that status on that request: NotFound and Conflict
// name the object when the request does, a 500 is NewInternalError's.
function defaultFault(status: number, r: Parameters<typeof matchesFilter>[0]): { reason: string; message: string; details?: StatusDetails } {
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  const named = r.resource !== '' && r.name !== '';
  const details = { name: r.name, ...(r.group ? { group: r.group } : {}), kind: r.resource };
  if (status === 404 && named) return { reason: 'NotFound', message: `${qualified} ${JSON.stringify(r.name)} not found`, details };
  if (status === 409 && named) {
    return { reason: 'Conflict', details,
      message: `Operation cannot be fulfilled on ${qualified} ${JSON.stringify(r.name)}: the object has been modified; please apply your changes to the latest version and try again` };
  }
  if (status === 500) return { reason: 'InternalError', message: 'Internal error occurred: injected fault', details: { causes: [{ message: 'injected fault' }] } };
  return DEFAULT_FAULTS[status] ?? { reason: 'Unknown', message: `the server responded with the status code ${status} but did not return more information` };
}

export class Hooks {
  private readonly log: RequestRecord[] = [];
  private readonly writes = new Map<string, { changed: number; attempts: number }>();
  private faults: Fault[] = [];
  private readonly pending = new Set<Parameters<typeof matchesFilter>[0]>();
  readonly events = new EventEmitter();

  /** A request is being handled (until record() is called for it). */
  begin(r: Parameters<typeof matchesFilter>[0]): () => void {
    this.pending.add(r);
    return () => this.pending.delete(r);
  }

  inFlight(filter: RequestFilter = {}): number {
    return [...this.pending].filter((r) => matchesFilter(r, filter)).length;
  }

  record(r: Omit<RequestRecord, 'seq'>): RequestRecord {
    const rec = { ...r, seq: this.log.length + 1 };
    this.log.push(rec);
    this.events.emit('request', rec);
    return rec;
  }

  requests(filter: RequestFilter = {}): RequestRecord[] {
    return this.log.filter((r) => matchesFilter(r, filter));
  }

  requestCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.log) out[r.route] = (out[r.route] ?? 0) + 1;
    return out;
  }

  /** Resolves with the matching records once there are at least `n`; rejects after `timeoutMs`. */
  waitForRequests(filter: RequestFilter, n: number, timeoutMs: number): Promise<RequestRecord[]> {
    const now = this.requests(filter);
    if (now.length >= n) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const onRequest = (): void => {
        const seen = this.requests(filter);
        if (seen.length < n) return;
        cleanup();
        resolve(seen);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`kube-api: ${this.requests(filter).length} of ${n} requests matching ${JSON.stringify(filter, (_k, v: unknown) => (v instanceof RegExp ? String(v) : v))} after ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.events.off('request', onRequest);
      };
      this.events.on('request', onRequest);
    });
  }

  countStatusWrite(key: string, changed: boolean): void {
    const w = this.writes.get(key) ?? { changed: 0, attempts: 0 };
    w.attempts++;
    if (changed) w.changed++;
    this.writes.set(key, w);
  }

  statusWrites(key: string): StatusWrites {
    const w = this.writes.get(key);
    return { changed: w?.changed ?? 0, attempts: w?.attempts ?? 0 };
  }

  failNext(spec: FaultSpec): FaultHandle {
    const fault: Fault = { spec, remaining: spec.times ?? 1, fired: 0 };
    this.faults.push(fault);
    return {
      get fired() {
        return fault.fired;
      },
      cancel: () => {
        this.faults = this.faults.filter((f) => f !== fault);
      },
    };
  }

  clearFaults(): void {
    this.faults = [];
  }

  /** The injected failure for this request, if a fault matches (and is used up by it). */
  takeFault(r: Parameters<typeof matchesFilter>[0]): KubeApiError | undefined {
    const fault = this.faults.find((f) => matchesFilter(r, f.spec));
    if (!fault) return undefined;
    fault.fired++;
    if (--fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    const { status } = fault.spec;
    const base = defaultFault(status, r);
    const retry = status === 429 || status === 503 || status === 504 ? fault.spec.retryAfterSeconds ?? 1 : undefined;
    const d: StatusDetails = { ...base.details, ...(retry ? { retryAfterSeconds: retry } : {}) };
    const body: StatusBody = failure(status, fault.spec.reason ?? base.reason, fault.spec.message ?? base.message, Object.keys(d).length > 0 ? d : undefined);
    return new KubeApiError(body, retry ? { 'Retry-After': String(retry) } : {});
  }
}
