// Watch streams (kube-api.md §3): chunked JSON lines; synthetic ADDEDs or a replay of the history
// by starting RV; selector transitions as ADDED/DELETED; bookmarks on request; a too-old RV as one
// ERROR 410 event on an HTTP 200; a clean end at the timeout. Tests can cut or end streams.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failure } from './errors.ts';
import { matches, parseRv, selectors } from './list.ts';
import type { Selectors } from './list.ts';
import { bookmark, present } from './present.ts';
import type { ListQuery } from './query.ts';
import type { Store, StoreEvent } from './store.ts';
import { asPartial } from './partial-metadata.ts';
import { toTable } from './table.ts';
import type { IncludeObject } from './table.ts';
import { clone, metaOf, str } from './types.ts';
import type { Obj, ResourceDef, VersionDef } from './types.ts';
import { storeKey } from './writes.ts';

export interface WatchTarget {
  readonly res: ResourceDef;
  readonly version: VersionDef;
  readonly namespace: string;
  /** From a legacy `/watch/…/{name}` path. */
  readonly name: string;
}

/** Picks open watches for dropWatches/endWatches; all when omitted. */
export interface WatchFilter {
  /** Kind, plural or plural.group. */
  readonly resource?: string;
  readonly namespace?: string;
}

interface OpenWatch {
  readonly target: WatchTarget;
  readonly res: ServerResponse;
  readonly bookmarks: boolean;
  readonly send: (type: string, object: Obj) => void;
  readonly close: () => void;
}

export class WatchHub {
  private readonly open = new Set<OpenWatch>();

  constructor(private readonly store: Store, private readonly defaultTimeoutSeconds: number) {}

  /**
   * Throws KubeApiError before anything is written (bad selector or RV); then streams.
   * @param table the request asked for Tables (`kubectl get --watch`): each event's object is
   *   sent as a meta.k8s.io/v1 Table, rows' objects as `table` says.
   * @param partial the apiVersion of PartialObjectMetadata, when a metadata client asked for it.
   */
  serve(t: WatchTarget, q: ListQuery, req: IncomingMessage, res: ServerResponse, table?: IncludeObject, partial?: string): void {
    const sel = selectors(t, q, t.name);
    const rvParam = q.resourceVersion ?? '';
    const from = rvParam === '' || rvParam === '0' ? undefined : parseRv(rvParam);
    const initial = q.sendInitialEvents ?? from === undefined;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    let headers = true;
    // watchEmbeddedEncoder (handlers/watch.go): with `as=Table` every event's object but a Status
    // (ERROR) is sent as the Table of that one object, bookmarks included; only the first carries
    // the column definitions (NoHeaders after it), and kubectl's table printer reuses them for the
    // rows that follow.
    const asTable = (type: string, object: Obj): Obj => {
      if (partial && type !== 'ERROR') return asPartial(object, partial);
      if (!table || type === 'ERROR') return object;
      const out = toTable(t.res, t.version, [object], { resourceVersion: str(metaOf(object).resourceVersion) }, table);
      if (!headers) delete out.columnDefinitions;
      headers = false;
      return out;
    };
    const send = (type: string, object: Obj): void => {
      res.write(`${JSON.stringify({ type, object: asTable(type, object) })}\n`);
    };

    if (from !== undefined && !q.sendInitialEvents) {
      const replay = this.store.eventsSince(from);
      if ('expired' in replay) {
        send('ERROR', failure(410, 'Expired', `too old resource version: ${from} (${replay.oldest})`) as unknown as Obj);
        res.end();
        return;
      }
      for (const e of replay) this.deliver(t, sel, e, 0, send);
    }
    if (initial) {
      for (const o of this.store.list(storeKey(t.res))) {
        if (this.visible(t, sel, o)) send('ADDED', present(t.res, t.version, o));
      }
      if (q.sendInitialEvents && q.allowWatchBookmarks) {
        send('BOOKMARK', bookmark(t.res, t.version, this.store.currentRv(), { 'k8s.io/initial-events-end': 'true' }));
      }
    }

    const bookmarks = q.allowWatchBookmarks === true;
    // A future RV waits: nothing up to it is sent.
    const after = from ?? 0;
    const unsubscribe = this.store.subscribe((e) => this.deliver(t, sel, e, after, send));
    const timeoutMs = (q.timeoutSeconds && q.timeoutSeconds > 0 ? q.timeoutSeconds : this.defaultTimeoutSeconds) * 1000;
    const timer = setTimeout(() => {
      if (bookmarks) send('BOOKMARK', bookmark(t.res, t.version, this.store.currentRv()));
      res.end();
    }, timeoutMs);
    const w: OpenWatch = {
      target: t, res, bookmarks, send,
      close: () => {
        clearTimeout(timer);
        unsubscribe();
        this.open.delete(w);
      },
    };
    this.open.add(w);
    res.once('close', w.close);
    req.once('close', w.close);
  }

  private visible(t: WatchTarget, sel: Selectors, o: Obj): boolean {
    return (!t.namespace || metaOf(o).namespace === t.namespace) && matches(t, sel, o);
  }

  // cacheWatcher.convertToWatchEvent: an object entering the selection is ADDED, one leaving it
  // is DELETED with its previous content and the event's RV.
  private deliver(t: WatchTarget, sel: Selectors, e: StoreEvent, after: number, send: (type: string, o: Obj) => void): void {
    if (e.resource !== storeKey(t.res) || e.rv <= after) return;
    const now = e.type !== 'DELETED' && this.visible(t, sel, e.object);
    const before = e.prev !== undefined && this.visible(t, sel, e.prev);
    if (now) {
      send(before ? 'MODIFIED' : 'ADDED', present(t.res, t.version, e.object));
    } else if (before) {
      const gone = clone(e.prev as Obj);
      metaOf(gone).resourceVersion = String(e.rv);
      send('DELETED', present(t.res, t.version, gone));
    }
  }

  private select(filter: WatchFilter | undefined, resolve: (name: string) => ResourceDef): OpenWatch[] {
    const res = filter?.resource ? resolve(filter.resource) : undefined;
    return [...this.open].filter((w) => (!res || w.target.res === res) && (filter?.namespace === undefined || w.target.namespace === filter.namespace));
  }

  count(filter: WatchFilter | undefined, resolve: (name: string) => ResourceDef): number {
    return this.select(filter, resolve).length;
  }

  /** Destroys the sockets under the selected streams, as a network cut would. */
  drop(filter: WatchFilter | undefined, resolve: (name: string) => ResourceDef): number {
    const picked = this.select(filter, resolve);
    for (const w of picked) {
      w.close();
      w.res.socket?.destroy();
    }
    return picked.length;
  }

  /** Ends the selected streams cleanly, as the server-side timeout does. */
  end(filter: WatchFilter | undefined, resolve: (name: string) => ResourceDef): number {
    const picked = this.select(filter, resolve);
    for (const w of picked) {
      w.close();
      w.res.end();
    }
    return picked.length;
  }

  /** Sends a BOOKMARK now on every open stream that allowed them. */
  bookmarkAll(): number {
    let n = 0;
    for (const w of this.open) {
      if (!w.bookmarks) continue;
      w.send('BOOKMARK', bookmark(w.target.res, w.target.version, this.store.currentRv()));
      n++;
    }
    return n;
  }

  closeAll(): void {
    for (const w of [...this.open]) {
      w.close();
      w.res.socket?.destroy();
    }
  }
}
