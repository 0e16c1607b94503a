import { MetalfleetError } from '../api/index.ts';
import type { Fence } from './fence.ts';

/** A store could not do what was asked; `retryable` says whether the same call may later succeed. */
export class StoreError extends MetalfleetError {
  constructor(message: string, retryable: boolean, options?: ErrorOptions, code = 'store') {
    super(code, message, retryable, undefined, options);
    this.name = 'StoreError';
  }
}

/** A fenced write refused because a newer owner of the object's shard has written since. */
export class StaleFence extends StoreError {
  /** `write` says what was refused, naming the object: "adding finalizer x to BareMetalHost ns/h". */
  constructor(key: string, readonly fence: Fence, readonly current: number, write = `status write for ${key}`) {
    super(`${write} refused: shard ${fence.shard} epoch ${fence.epoch} of ${fence.holder} is older than epoch ${current}, which has written since (this node no longer owns the shard)`, false, undefined, 'staleFence');
    this.name = 'StaleFence';
  }
}

/**
 * The object is not in the store (deleted, or never applied). Every store's not-found is one:
 * a writer whose object went has nothing left to write, which is no failure (BMO ignores a
 * NotFound on its last status update).
 */
export class ObjectGone extends StoreError {
  constructor(message: string) {
    super(message, false);
    this.name = 'ObjectGone';
  }
}
