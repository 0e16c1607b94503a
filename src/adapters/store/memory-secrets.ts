import type { Secret } from '../../api/secret.ts';
import type { SecretSource } from './nats-secrets.ts';
import { SecretChanges, secretChangeOf } from './secret-changes.ts';
import type { SecretEvent, SecretWatchOptions } from './secret-changes.ts';
import { freshSecretVersion, givenVersion, sameSecretContent, withVersion } from './secret-version.ts';

/**
 * Secrets held in this process (the embedded default's manifests); never written to any KV.
 *
 * Each Secret has a `metadata.resourceVersion`: its own when it is given one, else one the map
 * stamps — kept while a `set` brings the same content (type, data, stringData), fresh when the
 * content differs. Stamped versions never repeat within a process, nor across processes.
 */
export interface SecretMap extends SecretSource {
  /**
   * Stores `secret`; true when it is new or differs from the one it replaces. A version the map
   * stamped earlier (a Secret read back from it) counts as none: the content decides.
   */
  set(secret: Secret): boolean;
  /** `namespace/name` → the Secret, synchronously. */
  peek(key: string): Secret | undefined;
  /**
   * Puts back what `peek` returned (undefined: removes the key). A stamped version is not put
   * back: content that differs from the current one gets a fresh version, as a `set` would.
   */
  restore(key: string, secret: Secret | undefined): void;
  readonly size: number;
  /** Every set or restore that changes a Secret is announced (names only). */
  watch(onEvent: (event: SecretEvent) => void, options?: SecretWatchOptions): () => void;
}

export function createSecretMap(secrets: readonly Secret[] = []): SecretMap {
  const byKey = new Map<string, Secret>();
  const changes = new SecretChanges();
  const keyOf = (s: Secret): string => `${s.metadata.namespace}/${s.metadata.name}`;
  const versioned = (key: string, secret: Secret): Secret => {
    if (givenVersion(secret)) return secret;
    const old = byKey.get(key);
    const version = old?.metadata.resourceVersion !== undefined && sameSecretContent(old, secret) ? old.metadata.resourceVersion : freshSecretVersion();
    return withVersion(secret, version);
  };
  const put = (key: string, secret: Secret | undefined): boolean => {
    const old = byKey.get(key);
    const next = secret === undefined ? undefined : versioned(key, secret);
    if (next === undefined) byKey.delete(key);
    else byKey.set(key, next);
    const change = secretChangeOf(old, next);
    if (change) changes.emit({ key, change });
    return change !== null;
  };
  for (const s of secrets) put(keyOf(s), s);
  return {
    set: (secret) => put(keyOf(secret), secret),
    peek: (key) => byKey.get(key),
    restore(key, secret) {
      // Going back to older content is a change like any other (the API server would give the
      // write a new version): a host that read the newer Secret must see its credentials change.
      put(key, secret);
    },
    get size() {
      return byKey.size;
    },
    async get(namespace, name) {
      return byKey.get(`${namespace}/${name}`);
    },
    watch: (onEvent, options) => changes.subscribe(onEvent, options),
  };
}
