import type { KubernetesObject } from '@kubernetes/client-node';
import { makeInformer } from '@kubernetes/client-node';
import type { KubeClient } from './kube-client.ts';
import type { ResourceInfo } from './resources.ts';
import { collectionPath } from './resources.ts';

/** What an informer reports; the adapter actor turns each into a message. */
export interface InformerSink {
  event(verb: 'add' | 'update' | 'delete', object: unknown): void;
  /**
   * A list came back, before its objects are reported: the keys it holds and its resourceVersion.
   * The informer reports as deleted only objects it saw itself; the cache also holds our writes.
   */
  listed(keys: readonly string[], resourceVersion: string | undefined): void;
  /** Before each list or watch request (a clean end of a watch reconnects at once). */
  connected(): void;
  /** The informer stopped: it lists or watches again only when started again. */
  failed(error: unknown): void;
}

/** The slice of client-node's informer the adapter drives; tests give a fake. */
export interface InformerHandle {
  /** Lists (or resumes from the last RV), then opens the watch; resolves once that was tried. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type InformerFactory = (resource: ResourceInfo, sink: InformerSink) => InformerHandle;

/**
 * client-node's informer (ListWatch) on one resource, all namespaces or one. It re-watches by
 * itself after a clean end and re-lists after 410 Expired; anything else (another HTTP error, a
 * refused or dropped connection, a failed list) calls `failed` and leaves it stopped
 * (reference/kube-api.md §3): restarting is the adapter actor's job.
 */
export function clientInformerFactory(client: KubeClient, namespace?: string): InformerFactory {
  return (resource, sink) => {
    const informer = makeInformer<KubernetesObject>(client.config, collectionPath(resource, namespace), async () => {
      const list = await client.list(resource, namespace);
      sink.listed(list.items.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`), list.metadata?.resourceVersion);
      return list;
    });
    informer.on('add', (o) => sink.event('add', o));
    informer.on('update', (o) => sink.event('update', o));
    informer.on('delete', (o) => sink.event('delete', o));
    informer.on('connect', () => sink.connected());
    informer.on('error', (e: unknown) => sink.failed(e));
    return {
      start: () => {
        client.watching(resource, namespace);
        return informer.start();
      },
      stop: () => informer.stop(),
    };
  };
}
