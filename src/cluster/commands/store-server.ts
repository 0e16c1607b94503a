// Answers `metalfleet apply` and `metalfleet delete` on every node that keeps hosts in NATS KV,
// so that only nodes write the stores: the same request guard and audit as host commands, then
// exactly the apply or delete the CLI ran against KV before (src/adapters/store).
import { z } from 'zod';
import { fail, ok, serve, subjects as defaultSubjects, type Reply, type RequestContext, type RpcService, type Subjects } from '../../bus/index.ts';
import { validateBareMetalHost, errorMessage } from '../../api/index.ts';
import { whereOf } from '../../api/manifest.ts';
import { StoreError, type Logger, type Transport } from '../../ports/index.ts';
import { innerRequest, noAudit, type AuditAction, type AuditLog, type AuditOutcome, type Caller, type RequestGuard } from '../../security/index.ts';
import { auditEntry, auditOutcome, auditUnread, claimed } from './audit-entry.ts';
import { StoreApplyRequest, StoreDeleteKind, StoreDeleteRequest, type StoreApplyReply, type StoreDeleteReply, type StoreIssue } from './store-messages.ts';

export const STORE_QUEUE = 'mf-store';

type Issue = StoreIssue;

/** What the server needs of the host store (the NATS store: src/adapters/store/nats-store.ts). */
export interface HostApplier {
  applyDocuments(docs: ReadonlyArray<{ file: string; index: number; line?: number; object: unknown }>): Promise<{
    readonly ok: boolean;
    readonly issues: readonly Issue[];
    readonly hosts: ReadonlyArray<{ readonly key: string; readonly outcome: 'created' | 'updated' | 'unchanged' }>;
    readonly skipped: ReadonlyArray<{ readonly kind: string; readonly key?: string }>;
    readonly warnings: readonly string[];
  }>;
  requestDelete(key: string): Promise<'terminating' | 'deleted'>;
  get(key: string): Promise<{ readonly metadata: { readonly finalizers?: readonly string[] } } | undefined>;
  /** The stored host past any cache, for the check against its update rules. */
  getFresh?(key: string): Promise<unknown>;
  /** The store's records of each kind: for removing a record nobody can read (src/adapters/store/kind-cache.ts). */
  readonly resources?: { records(kind: 'BareMetalHost'): UnreadableRemover };
}

/**
 * Takes away an object whose newest record does not parse (the store refuses every other write to
 * it, and a requestDelete too, since its finalizers cannot be read): its key is deleted with a
 * compare-and-set on the unreadable revision. 'readable': it parses now (a good value came), so it
 * is deleted as any other; 'missing': there is nothing under the key.
 */
export interface UnreadableRemover {
  removeUnreadable(key: string): Promise<'removed' | 'readable' | 'missing'>;
}

/** The store's refusal of an object whose newest record does not parse (kind-cache.ts UnreadableRecord). */
function isUnreadable(error: unknown): boolean {
  return error instanceof StoreError && typeof (error as { unreadableRevision?: unknown }).unreadableRevision === 'number';
}

type ObjectIssue = { readonly kind?: string; readonly key?: string; readonly path: string; readonly message: string };

/** What the server needs of the object store (MAAS and Cluster API kinds: src/adapters/store/kv-store.ts). */
export interface ObjectApplier {
  check(objects: readonly unknown[]): readonly ObjectIssue[];
  /** `objects`: what was written, in input order, under the key the store gave it (generateName). */
  apply(objects: readonly unknown[]): Promise<{ readonly ok: boolean; readonly issues: readonly ObjectIssue[]; readonly objects?: ReadonlyArray<{ readonly key: string }> }>;
  /** As `kubectl delete`; 'missing' when there is no such object. */
  requestDelete(kind: ObjectDeleteKind, key: string): Promise<'terminating' | 'deleted' | 'missing'>;
  get(kind: ObjectDeleteKind, key: string): Promise<{ readonly metadata: { readonly finalizers?: readonly string[] } } | undefined>;
  /** Each kind's records: for removing a record nobody can read, as for hosts. */
  records?(kind: ObjectDeleteKind): UnreadableRemover;
}

/** The kinds delete takes from the object store: every one apply writes there. */
export type ObjectDeleteKind = Exclude<StoreDeleteKind, 'BareMetalHost'>;

export interface StoreServerOptions {
  readonly transport: Transport;
  readonly store: HostApplier;
  /** The object store; opened on first use when the node has none. */
  readonly objects: () => Promise<ObjectApplier>;
  /** True for the kinds the object store keeps. */
  readonly isObject: (object: unknown) => boolean;
  /** True for the store's "no such host" error (a refusal, not a failure). */
  readonly isNotFound: (error: unknown) => boolean;
  readonly guard: RequestGuard;
  readonly audit?: AuditLog;
  readonly node: string;
  readonly log: Logger;
  readonly subjects?: Subjects;
  readonly now?: () => Date;
}

export interface StoreServer {
  close(): Promise<void>;
}

/** `checked`: a check that found nothing wrong changed nothing, and is not audited. */
type Done = { reply: Reply<unknown>; outcome: AuditOutcome | 'checked'; command?: string | null; host?: string | null; reason?: string };

/** What the audit records of a request before (or without) validating it: its target and the kind of object it is for. */
type Seen = { command: string | null; host: string | null; kind: string | undefined };

// The sender's text goes into the record's kind only when it reads as a kind name.
const KIND_NAME = /^[A-Z][A-Za-z0-9]{0,62}$/;
const kindNamed = (value: string | null): string | undefined => (value !== null && KIND_NAME.test(value) ? value : undefined);

// A refusal the reply carries as issues (the store's update rules), in one line for the audit.
function refusedFor(issues: ReadonlyArray<{ readonly path: string; readonly message: string }>): { outcome: 'refused'; reason: string } {
  return { outcome: 'refused', reason: issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ') };
}

export function startStoreServer(options: StoreServerOptions): StoreServer {
  const subjects = options.subjects ?? defaultSubjects();
  const log = options.log.child({ component: 'store-requests' });
  const audit = options.audit ?? noAudit;
  const now = options.now ?? (() => new Date());

  // Guard, parse, act, audit: the same for both requests.
  const guarded = <S extends z.ZodType>(action: AuditAction, schema: S, peek: (request: unknown) => Seen, act: (request: z.infer<S>, caller: Caller) => Promise<Done>) =>
    async (payload: unknown, { subject, sender }: RequestContext): Promise<Reply<unknown>> => {
      let admission;
      try {
        admission = await options.guard.admit(subject, payload, 'operator');
      } catch (error) {
        return fail('unavailable', `cannot check the request now: ${errorMessage(error)}`, true);
      }
      const inner = admission.ok ? admission.request : innerRequest(payload);
      const seen = peek(inner);
      const record = async (done: Done): Promise<Reply<unknown>> => {
        if (done.outcome === 'checked') return done.reply;
        const entry = auditEntry({
          node: options.node, action, payload, caller: admission.caller, command: done.command ?? seen.command, host: done.host ?? seen.host, requestId: null,
          outcome: done.outcome, ...(done.reply.ok ? (done.reason ? { code: 'invalid', reason: done.reason } : {}) : { code: done.reply.error.kind, reason: done.reply.error.message }), now: now(),
        });
        // The kind of the object applied or deleted: a BareMetalHost and a MaasMachine (or a
        // MaasCluster) may share a name, and `metalfleet audit --kind` tells them apart by it.
        if (seen.kind !== undefined) entry.kind = seen.kind;
        await auditOutcome(audit, entry, admission.ok && admission.caller.kind === 'signed', sender);
        return done.reply;
      };
      if (!admission.ok) {
        log.warn({ subject, host: seen.host, caller: admission.caller, code: admission.error.code, err: admission.error.message }, `${action} refused`);
        return record({ reply: fail(admission.error.code, admission.error.message, false), outcome: 'refused' });
      }
      const parsed = schema.safeParse(inner);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(message)';
        return record({ reply: fail('invalidMessage', `${subject}: invalid message at ${path}: ${issue?.message ?? 'does not match the schema'}`), outcome: 'refused' });
      }
      try {
        return await record(await act(parsed.data, admission.caller));
      } catch (error) {
        if (options.isNotFound(error)) return record({ reply: fail('notFound', error instanceof Error ? error.message : 'not found'), outcome: 'refused' });
        if (error instanceof StoreError) return record({ reply: fail(error.retryable ? 'unavailable' : 'invalid', error.message, error.retryable), outcome: error.retryable ? 'failed' : 'refused' });
        if (error instanceof Error && (error as { retryable?: unknown }).retryable === true) return record({ reply: fail('unavailable', error.message, true), outcome: 'failed' });
        throw error;
      }
    };

  const peekObject = (request: unknown): Seen => {
    const object = (request as { document?: { object?: unknown } } | null)?.document?.object;
    const metadata = (object as { metadata?: unknown } | null)?.metadata;
    const name = claimed(metadata, 'name');
    const kind = claimed(object, 'kind');
    return { command: kind, host: name === null ? null : `${claimed(metadata, 'namespace') ?? 'default'}/${name}`, kind: kindNamed(kind) };
  };

  // A delete names its kind, or none for a BareMetalHost (as before deletes named kinds); one
  // naming no kind delete takes is refused, and recorded without one.
  const peekDelete = (request: unknown): Seen => {
    const named = typeof request === 'object' && request !== null ? (request as { kind?: unknown }).kind : undefined;
    const kind = named === undefined ? 'BareMetalHost' : StoreDeleteKind.safeParse(named).success ? named as string : undefined;
    return { command: 'delete', host: claimed(request, 'host'), kind };
  };

  // The stored host the update rules weigh an apply against: past the cache, or, when its newest
  // record does not parse, the last good version this node read (what the apply itself checks
  // against, then writes over the unreadable record), if any.
  const storedHost = async (key: string): Promise<unknown> => {
    if (!options.store.getFresh) return options.store.get(key);
    try {
      return await options.store.getFresh(key);
    } catch (error) {
      if (isUnreadable(error)) return options.store.get(key);
      throw error;
    }
  };

  const hostUpdateIssues = async (doc: StoreApplyRequest['document']): Promise<StoreIssue[]> => {
    const object = doc.object as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } } | null;
    if (object?.kind !== 'BareMetalHost' || typeof object.metadata?.name !== 'string') return [];
    const key = `${typeof object.metadata.namespace === 'string' ? object.metadata.namespace : 'default'}/${object.metadata.name}`;
    const stored = await storedHost(key);
    if (stored === undefined) return [];
    return validateBareMetalHost(doc.object, stored).map((e) => ({
      ...whereOf(doc), kind: 'BareMetalHost', key, path: e.path, message: e.reason,
    }));
  };

  const apply = serve(options.transport, subjects.storeApply, z.unknown(), guarded('apply', StoreApplyRequest, peekObject, async (req, caller) => {
    const { document: doc, phase } = req;
    const source = { ...whereOf(doc), object: doc.object };
    const empty: StoreApplyReply = { issues: [], hosts: [], objects: [], skipped: [], warnings: [] };
    if (options.isObject(doc.object)) {
      const objects = await options.objects();
      const issues = objects.check([doc.object]).map((i) => ({ ...whereOf(doc), ...(i.kind ? { kind: i.kind } : {}), ...(i.key ? { key: i.key } : {}), path: i.path, message: i.message }));
      if (issues.length > 0) return { reply: ok({ ...empty, issues }), ...refusedFor(issues) };
      if (phase === 'check') return { reply: ok(empty), outcome: 'checked' };
      const result = await objects.apply([doc.object]);
      if (!result.ok) return { reply: ok({ ...empty, issues: result.issues.map((i) => ({ ...whereOf(doc), path: i.path, message: i.message })) }), ...refusedFor(result.issues) };
      const o = doc.object as { kind: string; metadata: { name?: string; namespace?: string } };
      // The store's key: an object named only by generateName got its name there.
      const key = result.objects?.[0]?.key ?? `${o.metadata.namespace ?? 'default'}/${o.metadata.name ?? ''}`;
      log.info({ kind: o.kind, key, caller }, 'object applied');
      return { reply: ok({ ...empty, objects: [{ kind: o.kind, key }] }), outcome: 'applied' };
    }
    if (phase === 'check') {
      // The CLI checked the host as `validate` does; what is left are the update rules against
      // the stored version (the store checks them again as it writes, in case it moved since).
      const issues = await hostUpdateIssues(doc);
      return issues.length > 0 ? { reply: ok({ ...empty, issues }), ...refusedFor(issues) } : { reply: ok(empty), outcome: 'checked' };
    }
    const result = await options.store.applyDocuments([source]);
    if (!result.ok) return { reply: ok({ ...empty, issues: [...result.issues] }), ...refusedFor(result.issues) };
    const changed = result.hosts.some((h) => h.outcome !== 'unchanged');
    if (result.hosts.length > 0) log.info({ hosts: result.hosts, caller }, 'hosts applied');
    return {
      reply: ok({ issues: [], hosts: [...result.hosts], objects: [], skipped: result.skipped.map((s) => ({ kind: s.kind, ...(s.key ? { key: s.key } : {}) })), warnings: [...result.warnings] }),
      // A skipped kind changed nothing either.
      outcome: changed ? 'applied' : 'alreadyRecorded',
    };
  }), { queue: STORE_QUEUE, onUnread: (refusal) => auditUnread(audit, options.node, 'apply', refusal, now()) });

  // Each kind from the store apply wrote it to: a BareMetalHost from the host store, the MAAS and
  // Cluster API kinds from the object store (opened on first use, as for apply).
  const deleteObject = async (kind: ObjectDeleteKind, key: string): Promise<Done | { outcome: 'terminating' | 'deleted'; finalizers: readonly string[] }> => {
    const objects = await options.objects();
    const outcome = await objects.requestDelete(kind, key);
    if (outcome === 'missing') return { reply: fail('notFound', `${kind} ${key} not found`), outcome: 'refused' };
    const finalizers = outcome === 'terminating' ? (await objects.get(kind, key))?.metadata.finalizers ?? [] : [];
    return { outcome, finalizers };
  };
  const deleteHost = async (key: string): Promise<{ outcome: 'terminating' | 'deleted'; finalizers: readonly string[] }> => {
    const outcome = await options.store.requestDelete(key);
    return { outcome, finalizers: outcome === 'terminating' ? (await options.store.get(key))?.metadata.finalizers ?? [] : [] };
  };
  // A record nobody can read cannot be marked for deletion (its finalizers are unknown): its key
  // goes, as the store's refusal told the user to do. Should a good value come meanwhile, the
  // delete is tried again as for any other.
  const unreadableRemover = async (kind: StoreDeleteKind): Promise<UnreadableRemover | undefined> => {
    if (kind === 'BareMetalHost') return options.store.resources?.records('BareMetalHost');
    const objects = await options.objects();
    return objects.records?.(kind);
  };
  const remove = serve(options.transport, subjects.storeDelete, z.unknown(), guarded('delete', StoreDeleteRequest, peekDelete, async (req, caller) => {
    let done: { outcome: 'terminating' | 'deleted'; finalizers: readonly string[] } | undefined;
    for (let attempt = 1; done === undefined; attempt += 1) {
      try {
        if (req.kind === 'BareMetalHost') done = await deleteHost(req.host);
        else {
          const result = await deleteObject(req.kind, req.host);
          if ('reply' in result) return result;
          done = result;
        }
      } catch (error) {
        const remover = isUnreadable(error) && attempt < 3 ? await unreadableRemover(req.kind) : undefined;
        if (!remover) throw error;
        const removed = await remover.removeUnreadable(req.host);
        if (removed === 'missing') return { reply: fail('notFound', `${req.kind} ${req.host} not found`), outcome: 'refused' };
        if (removed === 'removed') {
          log.warn({ kind: req.kind, host: req.host, caller }, 'deleted an object whose record does not parse');
          done = { outcome: 'deleted', finalizers: [] };
        }
      }
    }
    log.info({ kind: req.kind, host: req.host, outcome: done.outcome, caller }, 'delete requested');
    const reply: StoreDeleteReply = { host: req.host, outcome: done.outcome, finalizers: [...done.finalizers] };
    return { reply: ok(reply), outcome: 'applied' };
  }), { queue: STORE_QUEUE, onUnread: (refusal) => auditUnread(audit, options.node, 'delete', refusal, now()) });

  let closing: Promise<void> | null = null;
  const services: RpcService[] = [apply, remove];
  return { close: () => (closing ??= Promise.all(services.map((s) => s.drain().catch(() => undefined))).then(() => undefined)) };
}
