import type { Secret } from '../../api/secret.ts';
import type { Logger } from '../../ports/index.ts';
import type { SecretSource } from '../store/nats-secrets.ts';
import type { SecretChangeKind } from '../store/secret-changes.ts';
import { jsonEqual } from './merge-patch.ts';
import { parseSecret } from './parse-secret.ts';
import type { RawObject } from './raw-object.ts';
import type { CacheChange, ResourceCache } from './resource-cache.ts';

type SecretContent = RawObject & { data?: unknown; type?: unknown };

/**
 * The Secrets of the adapter's informer as a SecretSource: read from the cache, and every Secret
 * that appears, changes its data or type, or is deleted is announced by name. A change of
 * metadata only (labels, a finalizer) is none: no host needs it.
 */
export function kubeSecretSource(cache: ResourceCache, log: Logger): SecretSource {
  return {
    async get(namespace, name): Promise<Secret | undefined> {
      const raw = cache.get(`${namespace}/${name}`);
      if (!raw) return undefined;
      const parsed = parseSecret(raw);
      if (parsed.ok) return parsed.value;
      // Field names only: the problems never carry a value.
      log.warn({ secret: `${namespace}/${name}`, problems: parsed.problems }, 'a Secret a host names does not parse; treated as missing');
      return undefined;
    },
    watch(onEvent) {
      return cache.subscribe((change) => {
        const kind = secretChange(change);
        if (kind) onEvent({ key: change.key, change: kind });
      });
    },
  };
}

function secretChange(change: CacheChange): SecretChangeKind | null {
  if (change.type === 'deleted') return 'removed';
  const before = change.prev as SecretContent | undefined;
  const after = change.next as SecretContent;
  if (!before) return 'appeared';
  return jsonEqual(before.data, after.data) && jsonEqual(before.type, after.type) ? null : 'changed';
}
