/**
 * A growable FIFO ring buffer: an actor's mailbox. nact's own (a private denque) can neither drop
 * its head for 'drop-oldest' nor hand a turn several messages, so nact only holds turn tokens.
 */
export class RingQueue<T> {
  private items: (T | undefined)[] = new Array<T | undefined>(4);
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count++;
  }

  /** Puts `item` first: the next shift() returns it. */
  unshift(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.head = (this.head - 1 + this.items.length) & (this.items.length - 1);
    this.items[this.head] = item;
    this.count++;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
    return item;
  }

  private grow(): void {
    const bigger = new Array<T | undefined>(this.items.length * 2);
    for (let i = 0; i < this.count; i++) bigger[i] = this.items[(this.head + i) & (this.items.length - 1)];
    this.items = bigger;
    this.head = 0;
  }
}
