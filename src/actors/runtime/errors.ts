import { MetalfleetError } from '../../api/index.ts';

/** Base of every failure the runtime hands back; `retryable` says whether trying again can help. */
export class ActorError extends MetalfleetError {
  constructor(
    message: string,
    retryable: boolean,
    readonly path: string,
    options?: ErrorOptions,
    code = 'actor',
  ) {
    super(code, message, retryable, undefined, options);
    this.name = 'ActorError';
  }
}

/** No reply within the deadline: the actor is slow, crashed on the message, or dropped it. */
export class AskTimeout extends ActorError {
  constructor(path: string, readonly timeoutMs: number, options?: ErrorOptions) {
    super(`ask to ${path} got no reply within ${timeoutMs} ms; retry, or raise the timeout if the actor is slow`, true, path, options, 'askTimeout');
    this.name = 'AskTimeout';
  }
}

/** The actor is stopped, draining or never existed; retrying the same ref cannot help. */
export class ActorStopped extends ActorError {
  constructor(path: string, options?: ErrorOptions) {
    super(`actor ${path} is stopped or draining and accepts no messages`, false, path, options, 'actorStopped');
    this.name = 'ActorStopped';
  }
}

/** The mailbox is at capacity (overflow 'reject'); back off and retry. */
export class MailboxFull extends ActorError {
  constructor(path: string, readonly capacity: number, options?: ErrorOptions) {
    super(`mailbox of ${path} is full (${capacity} messages); retry later`, true, path, options, 'mailboxFull');
    this.name = 'MailboxFull';
  }
}

/** spawn was given a bad name or a path that is already running. */
export class SpawnFailed extends ActorError {
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`cannot spawn ${path}: ${reason}`, false, path, options, 'spawnFailed');
    this.name = 'SpawnFailed';
  }
}

/** A behavior broke the runtime's contract (e.g. receive returned undefined); recorded as a crash. */
export class BehaviorError extends ActorError {
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`actor ${path}: ${reason}`, false, path, options, 'behavior');
    this.name = 'BehaviorError';
  }
}

/** One line for lastError and logs; never the whole stack. */
export function describeError(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    // e.g. a thrown Object.create(null): String() throws, and this runs inside crash handling.
    return 'an unprintable value was thrown';
  }
}
