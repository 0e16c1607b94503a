import { ActorCell } from './cell.ts';
import type { PendingAsk } from './cell.ts';
import type { TimerHandle } from './clock.ts';
import { ActorStopped, AskTimeout, MailboxFull } from './errors.ts';
import type { ActorError } from './errors.ts';
import type { ActorRef, Reply } from './ref.ts';
import { deliver } from './tell.ts';

const ignore = (): void => {};

// Our own reply function and timer instead of nact's query: no temp refs in a global map, a typed
// AskTimeout rather than Error('Query Timeout'), and prompt ActorStopped when the actor stops.
class Ask<R> implements PendingAsk {
  timer: TimerHandle | null = null;
  done = false;
  prev: PendingAsk | null = null;
  next: PendingAsk | null = null;

  constructor(
    private readonly cell: ActorCell,
    private readonly resolve: (value: R) => void,
    private readonly reject: (error: ActorError) => void,
  ) {}

  readonly reply: Reply<R> = (value) => {
    if (this.finish()) this.resolve(value);
  };

  abort(error: ActorError): void {
    if (this.finish()) this.reject(error);
  }

  /** Links into the cell's list of pending asks once the message is in its mailbox. */
  wait(timeoutMs: number): void {
    const { cell } = this;
    this.timer = cell.system.clock.setTimeout(() => this.abort(new AskTimeout(cell.path, timeoutMs)), timeoutMs, true);
    this.next = cell.asks;
    if (cell.asks !== null) cell.asks.prev = this;
    cell.asks = this;
  }

  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer === null) return true;
    this.cell.system.clock.clearTimeout(this.timer);
    if (this.prev === null) this.cell.asks = this.next;
    else this.prev.next = this.next;
    if (this.next !== null) this.next.prev = this.prev;
    this.prev = this.next = null;
    return true;
  }
}

/**
 * Sends build(reply) and resolves with the first value passed to reply. Rejects only with
 * AskTimeout, ActorStopped or MailboxFull, and never leaves an unhandled rejection behind (the
 * returned promise is pre-handled; an awaiting caller still sees the error). A throwing build
 * throws synchronously: that is a bug at the call site, not an outcome of asking.
 *
 * M comes from the ref alone (NoInfer). TypeScript widens literals returned by an inline arrow,
 * so pass a message constructor (`ask(ref, getStatus, 2000)` with
 * `getStatus = (reply: Reply<Status>): HostMsg => ...`) or write `type: 'get' as const`.
 */
export function ask<M, R>(ref: ActorRef<M>, build: (reply: Reply<R>) => NoInfer<M>, timeoutMs: number): Promise<R> {
  if (!(timeoutMs > 0)) throw new RangeError(`ask needs a timeout > 0 ms, got ${timeoutMs}`);
  let pending!: Ask<R>;
  const cell = ref instanceof ActorCell ? ref : null;
  const promise = new Promise<R>((resolve, reject) => {
    if (cell === null) reject(new ActorStopped(ref.path));
    else pending = new Ask(cell, resolve, reject);
  });
  promise.catch(ignore);
  if (cell === null) return promise;
  const outcome = deliver(cell, build(pending.reply));
  if (outcome === 'delivered') {
    if (!pending.done) pending.wait(timeoutMs);
  } else {
    pending.abort(outcome === 'overflow' ? new MailboxFull(cell.path, cell.mailbox.capacity) : new ActorStopped(cell.path));
  }
  return promise;
}
