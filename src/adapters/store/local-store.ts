import { documentName, isAbout, readManifests, whereOf } from '../../api/manifest.ts';
import type { BareMetalHost } from '../../api/index.ts';
import type { Secret } from '../../api/secret.ts';
import type { Logger, Transport } from '../../ports/index.ts';
import { resourceKey as hostKey } from '../../ports/index.ts';
import { createSecretMap } from './memory-secrets.ts';
import type { SecretMap } from './memory-secrets.ts';
import { openNatsStoreOn } from './nats-store.ts';
import type { NatsApplyResult, NatsStore } from './nats-store.ts';
import { validateDocuments } from './validate.ts';
import { nameDocuments } from './generated-names.ts';
import type { KvStore } from './kv-store.ts';
import { storedKindOf } from './kv-layouts.ts';
import type { ObjectValidator } from './object-apply.ts';
import type { ApplyIssue, SourceDocument } from './validate.ts';

/**
 * The embedded default's host store: the KV store a cluster uses, on the process's own KV, with
 * the Secrets of the applied manifests kept beside it in memory (never in KV, as in a cluster).
 */
export interface LocalStore extends NatsStore {
  readonly secrets: SecretMap;
  /** The one store, when it keeps the MAAS kinds too (the options' `maas`); null when hosts only. */
  readonly objects: KvStore | null;
  /** Secrets go to the secret map, everything else to the KV store; all validated first. */
  applyLocal(docs: readonly SourceDocument[]): Promise<NatsApplyResult>;
  /** As applyLocal, for plain objects (a generated fleet, a test's manifests). */
  applyObjects(objects: readonly unknown[], file?: string): Promise<NatsApplyResult>;
  /** As applyLocal, for the text of a YAML or JSON manifest file. */
  applyText(text: string, file: string): Promise<NatsApplyResult>;
}

export interface LocalStoreOptions {
  readonly log?: Logger;
  readonly pluginBmcSchemes?: readonly string[];
  /** Keep MaasMachines, MaasClusters and the Cluster API objects they read too, checked by these validators. */
  readonly maas?: { readonly validators?: Partial<Record<'MaasMachine' | 'MaasCluster', ObjectValidator>> };
}

export async function openLocalStore(transport: Pick<Transport, 'kv'>, options: LocalStoreOptions = {}): Promise<LocalStore> {
  const secrets = createSecretMap();
  const { maas, ...rest } = options;
  const store = await openNatsStoreOn(transport, { secrets, ...rest, maas: maas !== undefined, ...(maas?.validators ? { validators: maas.validators } : {}) });
  // The store keeps the hosts' companions always, the MAAS kinds when asked to.
  const objects = store.resources;
  // The rules a host is admitted by here: a plugin's BMC scheme is its own, not unknown.
  const admission = { pluginBmcSchemes: new Set(options.pluginBmcSchemes ?? []) };
  const applyLocal = async (docs: readonly SourceDocument[]): Promise<NatsApplyResult> => {
    // A Secret named only by generateName is named now, as the API server would on create.
    const secretDocs = nameDocuments(docs.filter((d) => d.yamlError === undefined && isSecret(d.object)), (key) => secrets.peek(key) !== undefined);
    const checked = validateDocuments(secretDocs, () => undefined, false);
    const objectDocs = docs.filter((d) => {
      const kind = d.yamlError === undefined ? storedKindOf(d.object) : null;
      return kind !== null && objects.keeps(kind);
    });
    const hostDocs = docs.filter((d) => d.yamlError !== undefined || (!isSecret(d.object) && !objectDocs.includes(d)));
    const objectIssues: ApplyIssue[] = objectDocs.length > 0 ? objects.check(objectDocs.map((d) => d.object)).map((i) => {
      const doc = objectDocs[i.index] as SourceDocument;
      return { ...whereOf(doc), ...(i.kind ? { kind: i.kind } : {}), ...(i.key ? { key: i.key } : {}), path: i.path, message: i.message };
    }) : [];
    if (checked.issues.length > 0 || objectIssues.length > 0) {
      // Nothing is stored when anything is wrong: report the hosts' problems too.
      // Checked with the plugins' BMC schemes, as the store admits them (nats-store.ts).
      const dry = hostDocs.length > 0 ? validateDocuments(nameDocuments(hostDocs, () => false), () => undefined, admission).issues : [];
      return refused(ordered(docs, [...checked.issues, ...objectIssues, ...dry]));
    }
    // Secrets first, so the hosts applied with them find them; put back if the hosts are refused.
    const warnings: string[] = [];
    const secretPlan = new Map<string, { secret: Secret; at: SourceDocument }>();
    for (const doc of checked.valid) {
      if (doc.type !== 'secret') continue;
      const earlier = secretPlan.get(doc.key);
      if (earlier) warnings.push(`Secret ${doc.key} is given twice (${documentName(earlier.at)} and ${documentName(doc.source)} of ${doc.source.file}); the later one wins`);
      secretPlan.set(doc.key, { secret: doc.secret, at: doc.source });
    }
    const before = new Map([...secretPlan.keys()].map((key) => [key, secrets.peek(key)]));
    const changed = new Set<string>();
    for (const [key, { secret }] of secretPlan) if (secrets.set(secret)) changed.add(key);
    const applied = await store.applyDocuments(hostDocs).catch((error: unknown) => {
      for (const [key, old] of before) secrets.restore(key, old);
      throw error;
    });
    if (!applied.ok) {
      for (const [key, old] of before) secrets.restore(key, old);
      return applied;
    }
    if (objectDocs.length > 0) await objects.apply(objectDocs.map((d) => d.object));
    for (const { key } of applied.hosts) {
      const host = await store.get(key);
      for (const ref of host ? secretRefs(host) : []) {
        if (!secrets.peek(ref.key)) warnings.push(`BareMetalHost ${key} names Secret ${ref.key} (${ref.field}), which is not in the store yet`);
      }
    }
    // A new or changed Secret wakes the hosts that name it (a host waiting for credentials
    // retries now rather than after its backoff); hosts applied just now had their own event.
    if (changed.size > 0) {
      const announced = new Set([...applied.created, ...applied.updated]);
      for (const host of await store.list()) {
        const key = hostKey(host);
        if (!announced.has(key) && secretRefs(host).some((ref) => changed.has(ref.key))) wake(host);
      }
    }
    return { ...applied, secrets: [...secretPlan.keys()], warnings: [...applied.warnings, ...warnings] };
  };
  // A Secret's change wakes the hosts that name it, as a spec change would.
  const wake = (host: BareMetalHost): void => store.resources.wake('BareMetalHost', hostKey(host));
  return Object.assign(store, {
    secrets,
    objects: maas ? objects : null,
    applyLocal,
    applyObjects: (objects: readonly unknown[], file = '(objects)') => applyLocal(objects.map((object, index) => ({ file, index, object }))),
    applyText: (text: string, file: string) => applyLocal(readManifests(text, file)),
  });
}

function isSecret(object: unknown): boolean {
  return typeof object === 'object' && object !== null && (object as { kind?: unknown }).kind === 'Secret';
}

function ordered(docs: readonly SourceDocument[], issues: ApplyIssue[]): ApplyIssue[] {
  const position = (issue: ApplyIssue): number => docs.findIndex((d) => isAbout(issue, d));
  return issues.sort((a, b) => position(a) - position(b));
}

function refused(issues: ApplyIssue[]): NatsApplyResult {
  return { ok: false, issues, created: [], updated: [], unchanged: [], secrets: [], skipped: [], warnings: [], hosts: [] };
}

type SecretRef = { readonly key: string; readonly field: string };

/** The Secrets a host names, and where. */
function secretRefs(host: BareMetalHost): SecretRef[] {
  const ns = host.metadata.namespace;
  const spec = host.spec;
  const refs: SecretRef[] = [];
  if (spec.bmc?.credentialsName) refs.push({ key: `${ns}/${spec.bmc.credentialsName}`, field: 'spec.bmc.credentialsName' });
  for (const field of ['userData', 'networkData', 'metaData'] as const) {
    const ref = spec[field];
    if (ref) refs.push({ key: `${ref.namespace || ns}/${ref.name}`, field: `spec.${field}` });
  }
  return refs;
}
