// LIST with the resourceVersion table of kube-api.md §2: most recent, not-older-than (waiting up
// to 3 s for a future RV, then 504), exact (rebuilt from the history, 410 once it is gone), and
// paging with continue tokens shaped like the real ones.
import { apiErrors } from './errors.ts';
import { fieldValues, supportedFieldLabels } from './fields.ts';
import type { ListQuery } from './query.ts';
import { SelectorError, matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, unsupportedField } from './selectors.ts';
import type { FieldSelector, LabelSelector } from './selectors.ts';
import type { Store } from './store.ts';
import { isObj, metaOf, objectKey, str } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';
import { storeKey } from './writes.ts';

export interface ListTarget {
  readonly store: Store;
  readonly res: ResourceDef;
  readonly version: VersionDef;
  /** '' = all namespaces. */
  readonly namespace: string;
}

export interface Selectors {
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
}

/** Parses both selectors; 400 for bad syntax or a field the resource cannot be selected by. */
export function selectors(t: Pick<ListTarget, 'res' | 'version'>, q: Pick<ListQuery, 'labelSelector' | 'fieldSelector'>, name = ''): Selectors {
  try {
    const labels = parseLabelSelector(q.labelSelector ?? '');
    const fields = parseFieldSelector(q.fieldSelector ?? '');
    const bad = unsupportedField(fields, supportedFieldLabels(t.res, t.version));
    if (bad) throw apiErrors.badRequest(bad);
    if (name) {
      const other = fields.find((f) => f.field === 'metadata.name' && (f.op !== '=' || f.value !== name));
      if (other) throw apiErrors.badRequest("fieldSelector metadata.name doesn't match requested name");
      return { labels, fields: [...fields, { field: 'metadata.name', op: '=', value: name }] };
    }
    return { labels, fields };
  } catch (e) {
    if (e instanceof SelectorError) throw apiErrors.badRequest(e.message);
    throw e;
  }
}

export function matches(t: Pick<ListTarget, 'res' | 'version'>, sel: Selectors, obj: Obj): boolean {
  const labels = metaOf(obj).labels;
  return matchesLabels(sel.labels, isObj(labels) ? (labels as Record<string, string>) : {})
    && (sel.fields.length === 0 || matchesFields(sel.fields, fieldValues(t.res, t.version, obj)));
}

/** Parses an RV parameter; 400 for anything but a decimal. */
export function parseRv(rv: string): number {
  if (!/^\d+$/.test(rv)) throw apiErrors.badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  return Number(rv);
}

const FUTURE_RV_WAIT_MS = 3_000;

async function notOlderThan(store: Store, rv: number): Promise<void> {
  if (!(await store.waitForRv(rv, FUTURE_RV_WAIT_MS))) throw apiErrors.tooLargeResourceVersion(rv, store.currentRv());
}

const INCONSISTENT_CONTINUE = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

interface Continue { readonly rv: number; readonly start: string }

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): Continue {
  try {
    const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (raw.v !== 'meta.k8s.io/v1') throw new Error('continue key is not supported by this server');
    if (typeof raw.rv !== 'number' || typeof raw.start !== 'string' || raw.start === '') throw new Error('continue key is not valid');
    return { rv: raw.rv, start: raw.start };
  } catch (e) {
    throw apiErrors.badRequest(`invalid continue token: ${(e as Error).message}`);
  }
}

/** The list snapshot (objects in key order) and its RV, per the query's RV semantics. */
async function snapshot(t: ListTarget, q: ListQuery, cont: Continue | undefined): Promise<{ rv: number; items: Obj[] }> {
  const { store } = t;
  const resource = storeKey(t.res);
  const exact = (rv: number, expiredMessage: () => never): { rv: number; items: Obj[] } => {
    const items = store.snapshotAt(resource, rv);
    if ('expired' in items) return expiredMessage();
    return { rv, items };
  };
  if (cont) {
    // rv -1: continue at the latest RV (the token of an inconsistent continue).
    if (cont.rv < 0) return { rv: store.currentRv(), items: store.list(resource) };
    return exact(cont.rv, () => {
      throw apiErrors.expired(INCONSISTENT_CONTINUE, encodeContinue(-1, cont.start));
    });
  }
  const current = (): { rv: number; items: Obj[] } => ({ rv: store.currentRv(), items: store.list(resource) });
  if (q.resourceVersion === undefined || q.resourceVersion === '' || q.resourceVersion === '0') return current();
  const rv = parseRv(q.resourceVersion);
  const isExact = q.resourceVersionMatch === 'Exact' || (q.resourceVersionMatch === undefined && q.limit !== undefined && q.limit > 0);
  await notOlderThan(store, rv);
  if (!isExact) return current();
  return exact(rv, () => {
    throw apiErrors.expired('The resourceVersion for the provided list is too old.');
  });
}

export interface ListResult {
  readonly items: Obj[];
  readonly metadata: Obj;
}

export async function listObjects(t: ListTarget, q: ListQuery): Promise<ListResult> {
  if (q.continue && q.resourceVersion !== undefined && q.resourceVersion !== '') {
    throw apiErrors.badRequest('specifying resource version is not allowed when using continue');
  }
  const sel = selectors(t, q);
  const cont = q.continue ? decodeContinue(q.continue) : undefined;
  const snap = await snapshot(t, q, cont);
  const keyOf = (o: Obj): string => objectKey(str(metaOf(o).namespace), str(metaOf(o).name));
  let candidates = snap.items.filter((o) => !t.namespace || metaOf(o).namespace === t.namespace);
  if (cont) candidates = candidates.filter((o) => keyOf(o) >= cont.start);
  const limit = q.limit !== undefined && q.limit > 0 ? q.limit : Infinity;
  const items: Obj[] = [];
  let next: Obj | undefined;
  let remaining = 0;
  for (const o of candidates) {
    if (!matches(t, sel, o)) continue;
    if (items.length < limit) items.push(o);
    else {
      next ??= o;
      remaining++;
    }
  }
  const metadata: Obj = { resourceVersion: String(snap.rv) };
  if (next) {
    metadata.continue = encodeContinue(snap.rv, `${keyOf(items[items.length - 1] as Obj)}\u0000`);
    // remainingItemCount only when nothing was filtered out.
    if (sel.labels.length === 0 && sel.fields.length === 0) metadata.remainingItemCount = remaining;
  }
  return { items, metadata };
}
