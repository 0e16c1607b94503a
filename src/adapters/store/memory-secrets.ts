import type { Secret } from '../../api/secret.ts';
import type { SecretSource } from './nats-secrets.ts';
import { SecretChanges, secretChangeOf } from './secret-changes.ts';
import type { SecretEvent, SecretWatchOptions } from './secret-changes.ts';

/** Secrets held in this process (the embedded default's manifests); never written to any KV. */
export interface SecretMap extends SecretSource {
  /** Stores `secret`; true when it is new or differs from the one it replaces. */
  set(secret: Secret): boolean;
  /** `namespace/name` → the Secret, synchronously. */
  peek(key: string): Secret | undefined;
  /** Puts back what `peek` returned (undefined: removes the key). */
  restore(key: string, secret: Secret | undefined): void;
  readonly size: number;
  /** Every set or restore that changes a Secret is announced (names only). */
  watch(onEvent: (event: SecretEvent) => void, options?: SecretWatchOptions): () => void;
}

export function createSecretMap(secrets: readonly Secret[] = []): SecretMap {
  const byKey = new Map<string, Secret>();
  const changes = new SecretChanges();
  const keyOf = (s: Secret): string => `${s.metadata.namespace}/${s.metadata.name}`;
  for (const s of secrets) byKey.set(keyOf(s), s);
  const put = (key: string, secret: Secret | undefined): boolean => {
    const old = byKey.get(key);
    if (secret === undefined) byKey.delete(key);
    else byKey.set(key, secret);
    const change = secretChangeOf(old, secret);
    if (change) changes.emit({ key, change });
    return change !== null;
  };
  return {
    set: (secret) => put(keyOf(secret), secret),
    peek: (key) => byKey.get(key),
    restore(key, secret) {
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
