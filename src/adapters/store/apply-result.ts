import type { ApplyIssue } from './validate.ts';

/** What applying manifests to a host store did (or, when not ok, why it did nothing). */
export interface ApplyResult {
  /** False when any document was invalid; then nothing at all was applied. */
  readonly ok: boolean;
  readonly issues: readonly ApplyIssue[];
  /** Host keys (`namespace/name`) by what apply did to them. */
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
  /** Secret keys stored (created or replaced). */
  readonly secrets: readonly string[];
  /** Documents of kinds the store does not keep. */
  readonly skipped: readonly { index: number; kind: string; key?: string }[];
  /** Applied, but worth a look: a Secret a host names is not in the store, a key given twice. */
  readonly warnings: readonly string[];
}
