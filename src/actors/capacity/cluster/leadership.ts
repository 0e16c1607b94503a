/**
 * Whether this node is the cluster's capacity broker, as a lease says. `epoch` grows with every
 * election (the lease's create revision) and fences the broker's KV writes. onDeposed must fire
 * before the lease could expire and be taken by another node (the lease self-fences).
 */
export interface Leadership {
  onElected(fn: (epoch: number) => void): void;
  onDeposed(fn: (reason: string) => void): void;
}

/** Leadership driven by hand: the embedded single-node mode (elect once) and tests. */
export interface ManualLeadership extends Leadership {
  elect(epoch: number): void;
  depose(reason?: string): void;
}

export function createManualLeadership(): ManualLeadership {
  const elected: ((epoch: number) => void)[] = [];
  const deposed: ((reason: string) => void)[] = [];
  return {
    onElected: (fn) => void elected.push(fn),
    onDeposed: (fn) => void deposed.push(fn),
    elect: (epoch) => {
      for (const fn of elected) fn(epoch);
    },
    depose: (reason = 'deposed by hand') => {
      for (const fn of deposed) fn(reason);
    },
  };
}
