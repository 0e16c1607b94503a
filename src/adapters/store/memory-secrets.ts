import type { Secret } from '../../api/secret.ts';
import type { SecretSource } from './nats-secrets.ts';

/** Secrets held in this process (the embedded default's manifests); never written to any KV. */
export interface SecretMap extends SecretSource {
  set(secret: Secret): void;
  readonly size: number;
}

export function createSecretMap(secrets: readonly Secret[] = []): SecretMap {
  const byKey = new Map<string, Secret>();
  const keyOf = (s: Secret): string => `${s.metadata.namespace}/${s.metadata.name}`;
  for (const s of secrets) byKey.set(keyOf(s), s);
  return {
    set(secret) {
      byKey.set(keyOf(secret), secret);
    },
    get size() {
      return byKey.size;
    },
    async get(namespace, name) {
      return byKey.get(`${namespace}/${name}`);
    },
  };
}
