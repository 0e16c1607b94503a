import type { BareMetalHost, BareMetalHostStatus } from '../api/index.ts';
import type { Secret } from '../api/secret.ts';

export type HostEvent =
  | { type: 'upsert'; host: BareMetalHost }
  | { type: 'deleted'; key: string };

// Where host specs come from and status goes to: Kubernetes, NATS KV, or memory. Writes of status
// never touch spec, and a write naming a host that is gone fails with StoreNotFound.
export interface HostStore {
  list(): Promise<BareMetalHost[]>;
  get(key: string): Promise<BareMetalHost | undefined>;
  // Called for spec and metadata changes (not for our own status writes). Returns unsubscribe.
  watch(listener: (event: HostEvent) => void): () => void;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  writeStatus(key: string, status: BareMetalHostStatus): Promise<void>;
  addFinalizer(key: string, finalizer: string): Promise<void>;
  removeFinalizer(key: string, finalizer: string): Promise<void>;
  removeAnnotation(key: string, annotation: string): Promise<void>;
  close?(): Promise<void>;
}

export class StoreError extends Error {
  constructor(message: string, readonly retryable: boolean, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreError';
  }
}

export function hostKey(host: Pick<BareMetalHost, 'metadata'>): string {
  return `${host.metadata.namespace}/${host.metadata.name}`;
}
