// One lane of writes per object: at most one request in flight per object, in the order asked,
// so each write starts from the resourceVersion the previous one returned. Status writes
// coalesce: a status asked for while an earlier one still waits its turn replaces it, and both
// callers learn the outcome of the one write that carries the newest status.

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

interface Lane {
  tail: Promise<void>;
  /** Tasks queued or running; the lane is dropped at zero. */
  tasks: number;
  /** A status write queued and not started yet: its payload is still replaceable. */
  queuedStatus: { payload: unknown; waiters: Waiter[] } | null;
}

export class WriteLanes {
  private readonly lanes = new Map<string, Lane>();

  /** Runs `task` after every write queued before it for `key`. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lane = this.lane(key);
    lane.tasks += 1;
    const result = lane.tail.then(task);
    lane.tail = result.then(() => undefined, () => undefined).then(() => this.done(key, lane));
    return result;
  }

  /**
   * Queues a status write, or folds it into the one already queued (newest payload wins) when
   * `foldable` says the two may share one write; otherwise it queues behind it.
   */
  coalesce<P>(key: string, payload: P, write: (payload: P) => Promise<void>, foldable: (queued: P, next: P) => boolean = () => true): Promise<void> {
    const existing = this.lanes.get(key)?.queuedStatus;
    if (existing && foldable(existing.payload as P, payload)) {
      existing.payload = payload;
      return new Promise<void>((resolve, reject) => existing.waiters.push({ resolve, reject }));
    }
    const lane = this.lane(key);
    const queued = { payload: payload as unknown, waiters: [] as Waiter[] };
    lane.queuedStatus = queued;
    const done = new Promise<void>((resolve, reject) => queued.waiters.push({ resolve, reject }));
    void this.run(key, async () => {
      if (lane.queuedStatus === queued) lane.queuedStatus = null;
      try {
        await write(queued.payload as P);
        for (const w of queued.waiters) w.resolve();
      } catch (error) {
        for (const w of queued.waiters) w.reject(error);
      }
    });
    return done;
  }

  /** Objects with writes queued or in flight. */
  get busy(): number {
    return this.lanes.size;
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { tail: Promise.resolve(), tasks: 0, queuedStatus: null };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private done(key: string, lane: Lane): void {
    lane.tasks -= 1;
    if (lane.tasks === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
  }
}
