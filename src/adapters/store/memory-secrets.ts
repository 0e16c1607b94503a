import type { Secret } from '../../api/secret.ts';
import type { SecretSource } from './nats-secrets.ts';

/** Secrets held in this process (the embedded default's manifests); never written to any KV. */
export interface SecretMap extends SecretSource {
  /** Stores `secret`; true when it is new or differs from the one it replaces. */
  set(secret: Secret): boolean;
  /** `namespace/name` → the Secret, synchronously. */
  peek(key: string): Secret | undefined;
  /** Puts back what `peek` returned (undefined: removes the key). */
  restore(key: string, secret: Secret | undefined): void;
  readonly size: number;
}

export function createSecretMap(secrets: readonly Secret[] = []): SecretMap {
  const byKey = new Map<string, Secret>();
  const keyOf = (s: Secret): string => `${s.metadata.namespace}/${s.metadata.name}`;
  for (const s of secrets) byKey.set(keyOf(s), s);
  return {
    set(secret) {
      const key = keyOf(secret);
      const old = byKey.get(key);
      byKey.set(key, secret);
      return old === undefined || JSON.stringify(old) !== JSON.stringify(secret);
    },
    peek: (key) => byKey.get(key),
    restore(key, secret) {
      if (secret === undefined) byKey.delete(key);
      else byKey.set(key, secret);
    },
    get size() {
      return byKey.size;
    },
    async get(namespace, name) {
      return byKey.get(`${namespace}/${name}`);
    },
  };
}
