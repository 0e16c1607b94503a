import type { CoreV1Event } from '@kubernetes/client-node';
import type { Logger } from '../../ports/index.ts';
import { KubeCallError } from './errors.ts';
import type { EventAggregatorOptions, EventPlan } from './event-aggregator.ts';
import { EventAggregator } from './event-aggregator.ts';
import type { KubeClient } from './kube-client.ts';
import { WriteLanes } from './write-lanes.ts';
import { errorMessage } from '../../api/index.ts';

/** The object an Event is about, as its involvedObject names it. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface EventRecorderOptions extends EventAggregatorOptions {
  readonly client: KubeClient;
  readonly log: Logger;
  /** source.component and reportingComponent. */
  readonly component: string;
  /** source.host and reportingInstance: the node's name. */
  readonly instance?: string;
  readonly now?: () => number;
}

// The API server refuses longer messages (validation caps an Event's message at 1 kB).
const MAX_MESSAGE = 1024;

/**
 * Kubernetes Events for what happens to an object, as BMO's recorder writes them (core/v1,
 * reason, message, Normal or Warning, the object's uid and resourceVersion). An identical event
 * within the aggregation window patches count and lastTimestamp of the one already written.
 * Recording never fails its caller: an Event lost is logged, not retried.
 */
export class EventRecorder {
  private readonly aggregator: EventAggregator;
  private readonly lanes = new WriteLanes();
  private readonly now: () => number;
  recorded = 0;
  failed = 0;

  constructor(private readonly o: EventRecorderOptions) {
    this.aggregator = new EventAggregator(o);
    this.now = o.now ?? Date.now;
  }

  record(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const nowMs = this.now();
    const plan = this.aggregator.plan({ namespace: object.namespace, kind: object.kind, name: object.name, uid: object.uid ?? '', type, reason, message: text }, nowMs);
    // In turn per identity: the create lands before the patches that count on it.
    return this.lanes.run(plan.key, () => this.write(object, type, reason, text, plan, nowMs)).then(
      () => {
        this.recorded += 1;
      },
      (error: unknown) => {
        this.failed += 1;
        this.o.log.warn({ namespace: object.namespace, object: `${object.kind}/${object.name}`, reason, err: errorMessage(error) }, 'recording an event failed');
      },
    );
  }

  private async write(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, plan: EventPlan, nowMs: number): Promise<void> {
    const what = `recording event ${reason} for ${object.kind} ${object.namespace}/${object.name}`;
    if (plan.action === 'patch') {
      try {
        await this.patch(object.namespace, plan.name, plan.count, nowMs, what);
        return;
      } catch (error) {
        // The Event expired (the server keeps them an hour) or was deleted: start a new one,
        // unless an occurrence queued before this one already did: then count into that.
        if (!(error instanceof KubeCallError && error.notFound)) throw error;
        this.aggregator.forget(plan.key, plan.name);
        const again = this.aggregator.plan({ namespace: object.namespace, kind: object.kind, name: object.name, uid: object.uid ?? '', type, reason, message }, nowMs);
        if (again.action === 'patch') await this.patch(object.namespace, again.name, again.count, nowMs, what);
        else await this.create(object, type, reason, message, again.name, nowMs, what);
        return;
      }
    }
    await this.create(object, type, reason, message, plan.name, nowMs, what);
  }

  private async patch(namespace: string, name: string, count: number, nowMs: number, what: string): Promise<void> {
    // eventTime: a legacy Event has none and is read back with `"eventTime": null`; the null
    // here keeps it absent, where an API server that decodes the merged object strictly
    // refuses a stored null (the test server does; a real one takes either).
    const patch = { eventTime: null, count, lastTimestamp: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z') };
    await this.o.client.patchEvent(namespace, name, patch, what);
  }

  private async create(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, name: string, nowMs: number, what: string): Promise<void> {
    const at = new Date(Math.floor(nowMs / 1000) * 1000);
    const event: CoreV1Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: object.namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        namespace: object.namespace,
        name: object.name,
        ...(object.uid ? { uid: object.uid } : {}),
        ...(object.resourceVersion ? { resourceVersion: object.resourceVersion } : {}),
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: this.o.component, ...(this.o.instance ? { host: this.o.instance } : {}) },
      reportingComponent: this.o.component,
      ...(this.o.instance ? { reportingInstance: this.o.instance } : {}),
    };
    await this.o.client.createEvent(object.namespace, event, what);
  }
}
