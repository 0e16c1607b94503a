import type { z } from 'zod';
import type { Answer, Call, Send } from './call.ts';
import { fail, header } from './call.ts';
import { IronicError } from './errors.ts';

// Reading an answer: its zod-checked shape, a 404 as null, and a list followed page by page.

// A list that keeps paging past this is not converging (a marker that does not advance).
const MAX_PAGES = 10_000;

export function parse<S extends z.ZodType>(c: Call, schema: S, a: Answer): z.infer<S> {
  const r = schema.safeParse(a.json);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
  throw fail(c, 'invalid-response', false, `Ironic's answer (HTTP ${a.status}) has an unexpected shape at ${where}: ${issue?.message ?? 'invalid'}`, {
    status: a.status,
    requestId: header(a.raw, 'openstack-request-id'),
    cause: r.error,
  });
}

export async function orNullOn404<T>(fn: () => Promise<T>, keep?: (e: IronicError) => boolean): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof IronicError && err.code === 'not-found' && !(keep?.(err) ?? false)) return null;
    throw err;
  }
}

/** Lists every page of a collection, from `first` on, on `endpoint`. */
export type ListAll = <S extends z.ZodType>(route: string, first: string, schema: S, items: (page: z.infer<S>) => unknown[]) => Promise<unknown[]>;

export function createListAll(send: Send, endpoint: string): ListAll {
  return async function listAll(route, first, schema, items) {
    const out: unknown[] = [];
    let path: string | null = first;
    for (let page = 0; path !== null; page++) {
      if (page >= MAX_PAGES) throw fail({ method: 'GET', path, route }, 'invalid-response', false, `Ironic kept paging past ${MAX_PAGES} pages`);
      const c: Call = { method: 'GET', path, route };
      const parsed = parse(c, schema, await send(c));
      out.push(...items(parsed));
      path = nextPage(endpoint, first, (parsed as { next?: string }).next);
    }
    return out;
  };
}

// Ironic's `next` is an absolute URL built from its own idea of its address (which may be a
// name this client cannot reach); only its query string is used, on our endpoint. It carries
// the marker, limit, sort, detail and fields but none of the filters (collection.py get_next:
// provision_state, node, address... are left out), so the first query's parameters are kept
// and the next link's laid over them; followed alone, page two on would list every node.
function nextPage(endpoint: string, first: string, next: string | undefined): string | null {
  if (next === undefined || next === '') return null;
  let given: URLSearchParams;
  try {
    given = new URL(next, endpoint).searchParams;
  } catch {
    return null;
  }
  if ([...given.keys()].length === 0) return null;
  const [base = first, query = ''] = first.split('?');
  const params = new URLSearchParams(query);
  for (const key of new Set(given.keys())) params.set(key, given.get(key) ?? '');
  return `${base}?${params.toString().replace(/%2C/g, ',')}`;
}
