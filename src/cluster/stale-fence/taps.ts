// Where refusals are heard (issue 30): the node's one store and its provisioner, wrapped so that
// every StaleFence a fenced write meets, and every owner-record refusal a backend reports, reaches
// the shard lease manager, whatever actor or kind made the write. The callers see the same
// results and errors as before.
import type { FenceRefusal, Provisioner, ResourceStore } from '../../ports/index.ts';
import { fenceRefusalOf } from '../../ports/index.ts';
import { passThrough } from '../../ports/pass-through.ts';

type Tell = (refusal: FenceRefusal) => void;

// The store's writes that take a fence; reads and user intent carry none.
const FENCED_WRITES = ['writeStatus', 'patchSpec', 'patchAnnotations', 'addFinalizer', 'removeFinalizer', 'createObject', 'addOwnerReference'] as const;

/** `store`, telling `tell` of each StaleFence its fenced writes are refused with. */
export function refusalTellingStore<S extends ResourceStore>(store: S, tell: Tell): S {
  const wrapped = new Map<PropertyKey, unknown>();
  // One handler for every write, not a closure per write (issue 30: a host's status writes ran
  // through here thousands of times a second, and under tsx each new closure is named too).
  const heard = (err: unknown): never => {
    const refusal = fenceRefusalOf(err);
    if (refusal) quietly(tell, refusal);
    throw err;
  };
  for (const name of FENCED_WRITES) {
    const write = store[name] as (...args: unknown[]) => Promise<unknown>;
    wrapped.set(name, (...args: unknown[]) => write.apply(store, args).catch(heard));
  }
  return passThrough(store, wrapped);
}

// Every call that takes HostData (all but the metadata ones).
const HOST_CALLS = ['capacity', 'register', 'inspect', 'prepare', 'provision', 'deprovision', 'adopt', 'powerOn', 'powerOff', 'hardwareState', 'detach', 'delete', 'service', 'firmware'] as const;

/** `provisioner`, its calls' HostData carrying `onFenceRefused` so its owner record's refusals reach `tell`. */
export function refusalTellingProvisioner<P extends Provisioner>(provisioner: P, tell: Tell): P {
  const wrapped = new Map<PropertyKey, unknown>();
  // Shared by every call, as the store's handler is.
  const onFenceRefused = (r: FenceRefusal): void => quietly(tell, r);
  for (const name of HOST_CALLS) {
    const call = provisioner[name] as ((host: object, ...rest: unknown[]) => unknown) | undefined;
    // An optional call the backend lacks stays absent: the host is told it cannot.
    if (typeof call !== 'function') continue;
    wrapped.set(name, (host: object, ...rest: unknown[]) => call.call(provisioner, { ...host, onFenceRefused }, ...rest));
  }
  return passThrough(provisioner, wrapped);
}

function quietly(tell: Tell, refusal: FenceRefusal): void {
  try {
    tell(refusal);
  } catch {
    // The write's own error is what its caller must see.
  }
}
