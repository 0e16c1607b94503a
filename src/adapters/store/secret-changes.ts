/** What happened to a Secret in a SecretSource. Names only: a change never carries a value. */
export type SecretChangeKind = 'appeared' | 'changed' | 'removed';

export interface SecretEvent {
  /** `namespace/name` */
  readonly key: string;
  readonly change: SecretChangeKind;
}

export interface SecretWatchOptions {
  /**
   * A source that could not read some of its Secrets (a manifest that stopped parsing, a file
   * that became unreadable) says so here, naming file, document and field, never a value; the
   * Secrets it last read stay in use.
   */
  readonly onProblem?: (message: string) => void;
}

type Listener = { readonly onEvent: (event: SecretEvent) => void; readonly onProblem: ((message: string) => void) | undefined };

/** The subscribers of one Secret source. A listener that throws stops neither the source nor the others. */
export class SecretChanges {
  private readonly listeners = new Set<Listener>();

  subscribe(onEvent: (event: SecretEvent) => void, options: SecretWatchOptions = {}): () => void {
    const entry: Listener = { onEvent, onProblem: options.onProblem };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(event: SecretEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l.onEvent(event);
      } catch {
        // One subscriber's failure is not the source's.
      }
    }
  }

  problem(message: string): void {
    for (const l of [...this.listeners]) {
      try {
        l.onProblem?.(message);
      } catch {
        // As above.
      }
    }
  }
}

/** The change from `before` to `after` of one key (undefined: absent), or null when there is none. */
export function secretChangeOf(before: unknown, after: unknown): SecretChangeKind | null {
  if (before === undefined) return after === undefined ? null : 'appeared';
  if (after === undefined) return 'removed';
  return JSON.stringify(before) === JSON.stringify(after) ? null : 'changed';
}

/** A source's changes, one Secret at a time: what host actors waiting for a Secret subscribe to. */
export interface KeyedSecretWatch {
  subscribe(key: string, listener: (change: SecretChangeKind) => void): () => void;
  /** Stops watching the source. */
  close(): void;
}

/**
 * One subscription to `watch` fanned out by key: a change reaches only the listeners of its
 * Secret, so a source with many Secrets costs a host nothing until it waits for one of them.
 */
export function watchSecretsByKey(watch: (onEvent: (event: SecretEvent) => void, options?: SecretWatchOptions) => () => void, options: SecretWatchOptions = {}): KeyedSecretWatch {
  const byKey = new Map<string, Set<(change: SecretChangeKind) => void>>();
  const stop = watch((event) => {
    const listeners = byKey.get(event.key);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(event.change);
      } catch {
        // A host's listener only tells its mailbox; nothing of it may stop the others.
      }
    }
  }, options);
  return {
    subscribe(key, listener) {
      let listeners = byKey.get(key);
      if (!listeners) byKey.set(key, (listeners = new Set()));
      const entry = (change: SecretChangeKind): void => listener(change);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
        if (listeners.size === 0 && byKey.get(key) === listeners) byKey.delete(key);
      };
    },
    close() {
      stop();
      byKey.clear();
    },
  };
}
