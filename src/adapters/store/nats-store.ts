import { validateBareMetalHost } from '../../api/index.ts';
import type { BareMetalHost, BareMetalHostStatus } from '../../api/index.ts';
import { documentName, isAbout, readManifests, whereOf } from '../../api/manifest.ts';
import type { Secret } from '../../api/secret.ts';
import type { Fence, FenceOptions, KvBucket, KvBucketOptions, Logger, Transport } from '../../ports/index.ts';
import type { HostEvent, HostIntent, HostStore, WatchOptions } from './host-records.ts';
import { StoreError } from '../../ports/index.ts';
import type { ApplyResult } from './apply-result.ts';
import type { ApplyOutcome } from './apply-plan.ts';
import type { SecretSource } from './nats-secrets.ts';
import { formatApplyIssue, validateDocuments, type ApplyIssue, type SourceDocument } from './validate.ts';
import { nameDocuments } from './generated-names.ts';
import { HOST_LAYOUTS, type SpecRecord } from './kv-layouts.ts';
import { ResourceNotFound, type KindRecords } from './kind-records.ts';
import { openKvStore, openKvStoreOn, type KvStore, type KvStoreOptions } from './kv-store.ts';

// The BareMetalHost records' own interface on the one KV store (kv-store.ts): host-keyed, as
// apply, snapshots and their tests use it, and BareMetalHost's apply, which checks hosts by
// Metal3's admission rules (validate.ts) and reports files and lines. Everything else reaches
// hosts through the one store port, ResourceStore, as every other kind does.
//
// Layout (kv-layouts.ts): mf-hosts holds each host without status, mf-status its status; the
// same key in both (`<namespace>.<name>`, escaped: nats-keys.ts).

export { ResourceNotFound } from './kind-records.ts';
export type { ApplyOutcome } from './apply-plan.ts';

const HOST = 'BareMetalHost';
export const NATS_HOSTS_BUCKET = HOST_LAYOUTS[0]!.specBucket;
export const NATS_STATUS_BUCKET = HOST_LAYOUTS[0]!.statusBucket;

export interface NatsStoreOptions extends FenceOptions, Omit<KvStoreOptions, 'bucket' | 'layouts'> {
  /** Spec and metadata: NATS_HOSTS_BUCKET in a cluster. */
  readonly specs: KvBucket;
  /** Status and fence epochs: NATS_STATUS_BUCKET in a cluster. */
  readonly status: KvBucket;
  /** This node's Secrets (see loadSecretFiles); without one getSecret finds nothing. */
  readonly secrets?: SecretSource;
  /** BMC address schemes of loaded provisioner plugins, accepted by admission (their plugin checks them). */
  readonly pluginBmcSchemes?: readonly string[];
  readonly log?: Logger;
}

export interface NatsApplyResult extends ApplyResult {
  /** Every host applied, in input order (the later of two documents naming one host). */
  readonly hosts: readonly { readonly key: string; readonly outcome: ApplyOutcome }[];
}

export interface NatsStore extends HostStore {
  /** The one store these host records are part of: every kind, as the node reads them. */
  readonly resources: KvStore;
  /** Annotations to set or remove (null), under the owner's fence; true when the host changed. */
  patchAnnotations(key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean>;
  /** Top-level spec fields to set (each checked against its schema) or remove (null). */
  patchSpec(key: string, spec: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void>;
  /** Validates every document first; any issue (a Secret among them) and nothing is written. */
  applyManifests(text: string, file: string): Promise<NatsApplyResult>;
  apply(objects: readonly unknown[], file?: string): Promise<NatsApplyResult>;
  /** Documents of several files, validated and applied as one. */
  applyDocuments(docs: readonly SourceDocument[]): Promise<NatsApplyResult>;
  /** The host as the buckets hold it now, past this node's cache. */
  getFresh(key: string): Promise<BareMetalHost | undefined>;
  /** Fenced writes refused with StaleFence since the store opened (each also told to onStaleFence). */
  staleFenceRefusals(): number;
  /**
   * Why the newest record of the host in either bucket cannot be read, for a user (bucket,
   * revision, reason; never the value); undefined when both read. Cleared by a good value.
   */
  recordProblem(key: string): string | undefined;
  recordProblems(): ReadonlyMap<string, string>;
  close(): Promise<void>;
}

export interface HostRecordsOptions {
  /** BMC address schemes of loaded provisioner plugins, accepted by admission. */
  readonly pluginBmcSchemes?: readonly string[];
}

/** Opens the one store with the hosts' buckets (created when absent), and the MAAS kinds' with `maas`. */
export async function openNatsStoreOn(
  transport: Pick<Transport, 'kv'>,
  options: Omit<NatsStoreOptions, 'specs' | 'status'> & { readonly kv?: KvBucketOptions; readonly maas?: boolean } = {},
): Promise<NatsStore> {
  const { pluginBmcSchemes, maas = false, ...rest } = options;
  return hostRecords(await openKvStoreOn(transport, { ...rest, maas }), pluginBmcSchemes ? { pluginBmcSchemes } : {});
}

/** The hosts' records on two buckets given (a test's, a snapshot's). */
export async function openNatsStore(options: NatsStoreOptions): Promise<NatsStore> {
  const { specs, status, pluginBmcSchemes, ...rest } = options;
  const bucket = async (name: string): Promise<KvBucket> => (name === NATS_STATUS_BUCKET ? status : specs);
  return hostRecords(await openKvStore({ ...rest, layouts: HOST_LAYOUTS, bucket }), pluginBmcSchemes ? { pluginBmcSchemes } : {});
}

/** The host-keyed view of the one store's BareMetalHosts, with BareMetalHost's apply. */
export function hostRecords(store: KvStore, options: HostRecordsOptions = {}): NatsStore {
  return new HostRecords(store, store.records(HOST), { pluginBmcSchemes: new Set(options.pluginBmcSchemes ?? []) });
}

function notFound(key: string): StoreError {
  return new ResourceNotFound(HOST, key);
}


function isSecretDocument(object: unknown): boolean {
  return object !== null && typeof object === 'object' && (object as { kind?: unknown }).kind === 'Secret';
}

function secretKeyOf(object: unknown): string | undefined {
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
  if (typeof metadata?.name !== 'string' || metadata.name === '') return undefined;
  return `${typeof metadata.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : 'default'}/${metadata.name}`;
}

const SECRET_REFUSED = 'Secrets are never stored in NATS (their values would travel in KV payloads): give them to each node with --secrets FILE|DIR and apply the hosts without their Secret documents';

/** One issue per Secret document: Secrets are never applied to the NATS store. */
export function secretDocumentIssues(docs: readonly SourceDocument[]): ApplyIssue[] {
  const issues: ApplyIssue[] = [];
  for (const doc of docs) {
    if (doc.yamlError !== undefined || !isSecretDocument(doc.object)) continue;
    const key = secretKeyOf(doc.object);
    issues.push({ ...whereOf(doc), kind: 'Secret', ...(key ? { key } : {}), path: '', message: SECRET_REFUSED });
  }
  return issues;
}

class HostRecords implements NatsStore {
  constructor(readonly resources: KvStore, private readonly records: KindRecords, private readonly admission: { readonly pluginBmcSchemes: ReadonlySet<string> }) {}

  async list(): Promise<BareMetalHost[]> {
    return this.records.list() as BareMetalHost[];
  }

  async get(key: string): Promise<BareMetalHost | undefined> {
    return this.merged(key);
  }

  private merged(key: string): BareMetalHost | undefined {
    return this.records.merged(key) as BareMetalHost | undefined;
  }

  async getFresh(key: string): Promise<BareMetalHost | undefined> {
    return (await this.records.getFresh(key)) as BareMetalHost | undefined;
  }

  watch(listener: (event: HostEvent) => void, options: WatchOptions = {}): () => void {
    return this.resources.watch<'BareMetalHost'>((event) => {
      listener(event.type === 'upsert' ? { type: 'upsert', host: event.object } : { type: 'deleted', key: event.key });
    }, { kinds: [HOST], ...(options.keys ? { keys: options.keys } : {}) });
  }

  getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.resources.getSecret(namespace, name);
  }

  writeStatus(key: string, status: BareMetalHostStatus, fence?: Fence): Promise<void> {
    return this.records.writeStatus(key, status as Record<string, unknown>, fence);
  }

  addFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    return this.records.addFinalizer(key, finalizer, fence);
  }

  removeFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    return this.records.removeFinalizer(key, finalizer, fence);
  }

  async removeAnnotation(key: string, annotation: string, fence?: Fence): Promise<void> {
    await this.records.patch(key, { annotations: { [annotation]: null } }, `removing annotation ${annotation} from`, fence);
  }

  patchAnnotations(key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    return this.records.patch(key, { annotations }, 'annotating', fence);
  }

  async patchSpec(key: string, spec: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void> {
    await this.records.patch(key, { spec }, 'patching the spec of', fence);
  }

  async applyIntent(key: string, intent: HostIntent): Promise<BareMetalHost> {
    const spec = intent.online !== undefined ? { ...intent.spec, online: intent.online } : intent.spec;
    return (await this.records.applyIntent(key, { ...(intent.annotations ? { annotations: intent.annotations } : {}), ...(spec ? { spec } : {}) })).object as BareMetalHost;
  }

  async requestDelete(key: string): Promise<'terminating' | 'deleted'> {
    const result = await this.records.requestDelete(key);
    if (result === 'missing') throw notFound(key);
    return result;
  }

  staleFenceRefusals(): number {
    return this.resources.staleFenceRefusals();
  }

  recordProblem(key: string): string | undefined {
    return this.records.recordProblem(key);
  }

  recordProblems(): ReadonlyMap<string, string> {
    return this.resources.recordProblems(HOST);
  }

  close(): Promise<void> {
    return this.resources.close();
  }

  // ---- apply ----

  applyManifests(text: string, file: string): Promise<NatsApplyResult> {
    return this.applyDocuments(readManifests(text, file));
  }

  apply(objects: readonly unknown[], file = '(objects)'): Promise<NatsApplyResult> {
    return this.applyDocuments(objects.map((object, index) => ({ file, index, object })));
  }

  async applyDocuments(docs: readonly SourceDocument[]): Promise<NatsApplyResult> {
    const refused = secretDocumentIssues(docs);
    // Hosts named only by generateName get their name now, once, as the API server names them.
    const hostDocs = nameDocuments(docs.filter((doc) => doc.yamlError !== undefined || !isSecretDocument(doc.object)), (key) => this.records.holds(key));
    // Update rules run against the cached version here, and again inside the write when the
    // stored version turns out to have moved on since.
    const validatedAt = new Map<string, number | undefined>();
    const { valid, issues } = validateDocuments(hostDocs, (key) => {
      validatedAt.set(key, this.records.revision(key));
      return this.merged(key);
    }, this.admission);
    if (issues.length > 0 || refused.length > 0) {
      // In document order, whichever check found them.
      const position = (issue: ApplyIssue): number => docs.findIndex((d) => isAbout(issue, d));
      const all = [...issues, ...refused].sort((a, b) => position(a) - position(b));
      return { ok: false, issues: all, created: [], updated: [], unchanged: [], secrets: [], skipped: [], warnings: [], hosts: [] };
    }
    const warnings: string[] = [];
    const skipped: { index: number; kind: string; key?: string }[] = [];
    const plan = new Map<string, { host: BareMetalHost; source: SourceDocument }>();
    for (const doc of valid) {
      if (doc.type === 'skipped') {
        skipped.push({ index: doc.source.index, kind: doc.kind, ...(doc.key ? { key: doc.key } : {}) });
        continue;
      }
      if (doc.type !== 'host') continue;
      const earlier = plan.get(doc.key);
      if (earlier) {
        warnings.push(`BareMetalHost ${doc.key} is given twice (${earlier.source.file} ${documentName(earlier.source)} and ${doc.source.file} ${documentName(doc.source)}); the later one wins`);
        plan.delete(doc.key);
      }
      plan.set(doc.key, { host: doc.host, source: doc.source });
    }
    const hosts: { key: string; outcome: ApplyOutcome }[] = [];
    for (const [key, { host, source }] of plan) {
      let outcome: ApplyOutcome;
      try {
        outcome = await this.records.apply(key, host as unknown as SpecRecord, {
          generated: source.generated === true,
          validatedAt: validatedAt.get(key),
          // Update rules run again when the stored version moved on since it was validated.
          check: (stored) => this.revalidate(key, source, stored as BareMetalHost | undefined),
        });
      } catch (error) {
        if (hosts.length === 0 || !(error instanceof StoreError)) throw error;
        const done = hosts.map((h) => `${h.key} ${h.outcome}`).join(', ');
        throw new StoreError(`${error.message} (already applied: ${done})`, error.retryable, { cause: error });
      }
      hosts.push({ key, outcome });
    }
    const of = (o: ApplyOutcome) => hosts.filter((h) => h.outcome === o).map((h) => h.key);
    return { ok: true, issues: [], created: of('created'), updated: of('updated'), unchanged: of('unchanged'), secrets: [], skipped, warnings, hosts };
  }

  private revalidate(key: string, source: SourceDocument, stored: BareMetalHost | undefined): void {
    const errors = validateBareMetalHost(source.object, stored, this.admission);
    if (errors.length === 0) return;
    const issues = errors.map((e) => formatApplyIssue({ ...whereOf(source), kind: 'BareMetalHost', key, path: e.path, message: e.reason }));
    throw new StoreError(`BareMetalHost ${key} changed while it was applied and the new version refuses this update: ${issues.join('; ')}`, false);
  }
}
