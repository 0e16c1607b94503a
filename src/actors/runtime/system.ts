import { randomUUID } from 'node:crypto';
import type { Ref } from 'nact';
import type { ActorCell } from './cell.ts';
import { systemClock } from './clock.ts';
import type { Clock } from './clock.ts';
import type { RuntimeCore } from './core.ts';
import { DrainRun } from './drain.ts';
import type { DrainResult } from './drain.ts';
import { describeError } from './errors.ts';
import { startNactSystem, stopNact } from './nact-bridge.ts';
import { CellRegistry } from './registry.ts';
import type { ActorRegistry } from './registry.ts';
import { stopCell } from './stop.ts';

export type FailurePhase = 'init' | 'receive' | 'onStop' | 'onGiveUp' | 'describe';

/** A crash or a throwing hook, as reported to StartOptions.onError. */
export interface ActorFailure {
  phase: FailurePhase;
  path: string;
  name: string;
  kind: string;
  error: unknown;
  /** describeError(error): one line for logs. */
  message: string;
}

export interface StartOptions {
  /** Shown in logs; need not be unique (the nact system name is made unique). */
  name?: string;
  /** Every crash and every throwing onStop/onGiveUp/describe. Default: one line on stderr. */
  onError?: (failure: ActorFailure) => void;
  clock?: Clock;
}

export interface ActorSystem {
  readonly name: string;
  /** Unique per startSystem call: nact keeps systems in a process-global map by name. */
  readonly id: string;
  readonly registry: ActorRegistry;
  readonly clock: Clock;
  readonly state: 'running' | 'draining' | 'stopped';
  /**
   * Refuses new tells, lets every actor run what it holds until the deadline, then stops all
   * (onStop runs). Idempotent: later calls get the same result. Polls on the system clock, so
   * with a manual clock the test advances it.
   */
  drain(timeoutMs: number): Promise<DrainResult>;
  /** Stops every actor now; queued messages are dropped, pending asks reject with ActorStopped. */
  stop(): void;
}

const reportToStderr = (f: ActorFailure): void => console.error(`actor ${f.path} (${f.kind}) ${f.phase} failed: ${f.message}`);

export class RuntimeSystem implements RuntimeCore {
  readonly id: string;
  readonly nactRef: Ref<never>;
  readonly registry: CellRegistry;
  readonly roots = new Map<string, ActorCell>();
  refusing = false;
  stopped = false;
  private nactNames = 0;
  private draining: DrainRun | null = null;

  constructor(
    readonly name: string,
    readonly clock: Clock,
    private readonly onError: (failure: ActorFailure) => void,
  ) {
    this.id = `${name}.${randomUUID()}`;
    this.nactRef = startNactSystem(this.id);
    this.registry = new CellRegistry((cell, error) => this.report(cell, 'describe', error));
  }

  get state(): ActorSystem['state'] {
    return this.stopped ? 'stopped' : this.refusing ? 'draining' : 'running';
  }

  nextNactName(): string {
    return (this.nactNames++).toString(36);
  }

  report(cell: ActorCell, phase: FailurePhase, error: unknown): void {
    try {
      this.onError({ phase, path: cell.path, name: cell.name, kind: cell.kind, error, message: describeError(error) });
    } catch {
      // The error hook itself failed; nothing safer is left to tell, and throwing here would
      // reach nact or a timer callback and crash the process.
    }
  }

  drain(timeoutMs: number): Promise<DrainResult> {
    if (this.draining === null) {
      this.refusing = true;
      this.draining = new DrainRun(this.clock, [...this.registry.all()], timeoutMs, () => this.halt());
    }
    return this.draining.result;
  }

  stop(): void {
    this.draining?.settle();
    this.halt();
  }

  private halt(): void {
    if (this.stopped) return;
    this.refusing = true;
    this.stopped = true;
    for (const root of [...this.roots.values()]) stopCell(root);
    stopNact(this.nactRef);
  }
}

export function startSystem(opts: StartOptions = {}): ActorSystem {
  return new RuntimeSystem(opts.name ?? 'metalfleet', opts.clock ?? systemClock, opts.onError ?? reportToStderr);
}
