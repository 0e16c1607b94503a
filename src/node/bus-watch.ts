import type { BusStatus, Transport } from '../ports/index.ts';

/** The node's bus as last heard of: up until the transport says otherwise. */
export interface BusWatch {
  /** Connected, as far as the transport last said. */
  up(): boolean;
  /** What the transport last said. */
  status(): BusStatus;
  /** Whether the server answers a ping within `withinMs`; one that does not leaves the bus `stalled` (down). */
  answers(withinMs: number): Promise<boolean>;
  /** Resolves once the bus is down: at once when it is down now. `cancel` forgets the wait. */
  whenDown(): { readonly down: Promise<void>; cancel(): void };
  close(): void;
}

export function watchBus(transport: Transport): BusWatch {
  let status: BusStatus = 'connected';
  const waiters = new Set<() => void>();
  const unsubscribe = transport.onStatus((next) => {
    status = next;
    if (next === 'connected') return;
    for (const wake of [...waiters]) wake();
    waiters.clear();
  });
  const up = (): boolean => status === 'connected';
  return {
    up,
    status: () => status,
    answers: (withinMs) => transport.answers(withinMs),
    whenDown() {
      let wake!: () => void;
      const down = new Promise<void>((resolve) => (wake = resolve));
      if (up()) waiters.add(wake);
      else wake();
      return { down, cancel: () => waiters.delete(wake) };
    },
    close: () => {
      unsubscribe();
      waiters.clear();
    },
  };
}
