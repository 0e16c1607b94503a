// The calls waiting for one of a backend's places, and which goes next (issue 30).
export interface Waiter {
  /** Served before every waiter with a greater order (a caller's start number: BackendCalls.startNumber). */
  readonly order: number;
  /** Arrival number: FIFO among equal orders, and the aging queue's order. */
  readonly arrival: number;
  readonly since: number;
  readonly start: () => void;
  served: boolean;
}

// A backend's waiting calls (BackendCalls passes a place from a finished call straight to the
// next of them, so no newcomer takes a place a waiter was owed). The next waiter is the one of
// least order (the caller that started first: it finishes what it started before a newer one
// starts, issue 30), FIFO among equals, from a binary heap: thousands wait at once. A waiter that has waited `agedMs` is served before the heap, oldest first (a FIFO beside
// the heap), so older callers that keep calling cannot starve a newer one: every call waits at
// most about `agedMs` plus the time to serve the aged calls that arrived before it.
export class WaitQueue {
  private arrivals = 0;
  private count = 0;
  private readonly heap: Waiter[] = [];
  // Arrival order, for aging and the oldest wait; entries served through the heap are skipped.
  private fifo: Waiter[] = [];
  private head = 0;

  constructor(private readonly agedMs: number) {}

  get waiting(): number {
    return this.count;
  }

  oldest(): Waiter | undefined {
    this.skipServed();
    return this.fifo[this.head];
  }

  enqueue(waiter: Waiter): void {
    this.count += 1;
    this.fifo.push(waiter);
    this.heap.push(waiter);
    this.up(this.heap.length - 1);
  }

  next(now: number): Waiter | undefined {
    if (this.count === 0) return undefined;
    const oldest = this.oldest();
    let w: Waiter | undefined;
    if (oldest !== undefined && now - oldest.since >= this.agedMs) w = oldest;
    else {
      do w = this.pop(); while (w !== undefined && w.served);
    }
    if (w === undefined) return undefined;
    w.served = true;
    this.count -= 1;
    // Served waiters linger in the other structure until they reach its top: drop them once they
    // outnumber the live ones, so neither grows without bound under aging.
    if (this.heap.length > 1_024 && this.heap.length > 2 * this.count) this.rebuildHeap();
    return w;
  }

  // The FIFO's dead head is dropped once it outgrows what is left: ten thousand hosts registering
  // at once shift no array ten thousand times.
  private skipServed(): void {
    while (this.head < this.fifo.length && this.fifo[this.head]!.served) {
      this.fifo[this.head] = undefined as unknown as Waiter;
      this.head += 1;
    }
    if (this.head > 1_024 && this.head * 2 > this.fifo.length) {
      this.fifo = this.fifo.slice(this.head);
      this.head = 0;
    }
  }

  private rebuildHeap(): void {
    const live = this.heap.filter((w) => !w.served);
    this.heap.length = 0;
    for (const w of live) {
      this.heap.push(w);
      this.up(this.heap.length - 1);
    }
  }

  private pop(): Waiter | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    this.down(0);
    return top;
  }

  private up(i: number): void {
    const heap = this.heap;
    const w = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(w, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = w;
  }

  private down(i: number): void {
    const heap = this.heap;
    const w = heap[i]!;
    const n = heap.length;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1]!, heap[child]!)) child += 1;
      if (!before(heap[child]!, w)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = w;
  }

  nextArrival(): number {
    return this.arrivals++;
  }
}

function before(a: Waiter, b: Waiter): boolean {
  return a.order < b.order || (a.order === b.order && a.arrival < b.arrival);
}
