export interface QueueLinks<N> {
  qPrev: N | undefined;
  qNext: N | undefined;
}

/**
 * FIFO of waiters as an intrusive doubly linked list: push, shift and removing a cancelled waiter
 * from the middle are all O(1) (the pool finds the node through its holder map), where an array
 * would make every cancel an O(n) splice.
 */
export class WaiterQueue<N extends QueueLinks<N>> {
  head: N | undefined = undefined;
  tail: N | undefined = undefined;
  size = 0;

  push(node: N): void {
    node.qNext = undefined;
    node.qPrev = this.tail;
    if (this.tail) this.tail.qNext = node;
    else this.head = node;
    this.tail = node;
    this.size++;
  }

  shift(): N | undefined {
    const node = this.head;
    if (node) this.remove(node);
    return node;
  }

  /** `node` must be in this queue. */
  remove(node: N): void {
    if (node.qPrev) node.qPrev.qNext = node.qNext;
    else this.head = node.qNext;
    if (node.qNext) node.qNext.qPrev = node.qPrev;
    else this.tail = node.qPrev;
    node.qPrev = undefined;
    node.qNext = undefined;
    this.size--;
  }

  /**
   * 1-based place of `node` (which must be queued). Only a repeated acquire by a waiter asks this,
   * so we walk from both ends at once rather than keep an order-statistics index for every
   * operation: O(min(place, size - place)).
   */
  positionOf(node: N): number {
    let front = this.head;
    let back = this.tail;
    for (let i = 1, j = this.size; front && back; i++, j--) {
      if (front === node) return i;
      if (back === node) return j;
      front = front.qNext;
      back = back.qPrev;
    }
    throw new Error('capacity: waiter is not in this queue');
  }

  *[Symbol.iterator](): IterableIterator<N> {
    for (let node = this.head; node; node = node.qNext) yield node;
  }
}
