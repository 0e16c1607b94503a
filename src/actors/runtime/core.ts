import type { Ref } from 'nact';
import type { ActorCell } from './cell.ts';
import type { CellRegistry } from './registry.ts';
import type { ActorSystem, FailurePhase } from './system.ts';

/** What cells, spawn and supervision need from their system beyond the public face. */
export interface RuntimeCore extends ActorSystem {
  readonly registry: CellRegistry;
  readonly nactRef: Ref<never>;
  /** Top-level actors by name. */
  readonly roots: Map<string, ActorCell>;
  /** Draining or stopped: new actors start refusing tells. */
  readonly refusing: boolean;
  readonly stopped: boolean;
  nextNactName(): string;
  report(cell: ActorCell, phase: FailurePhase, error: unknown): void;
}
