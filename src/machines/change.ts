import type { MachineView } from './logic.ts';

/**
 * One change of one object as every reader learns of it (metrics, `hosts`, `top`, the page), for
 * every kind alike: the generic machine actor reports it after each step whose view differs from
 * the last one it reported. In-process only: it never crosses a wire, so it is a type, not a schema.
 */
export interface MachineChange {
  /** The resource kind, as in manifests ('BareMetalHost', 'MaasMachine', 'MaasCluster'). */
  readonly kind: string;
  /** `namespace/name`. */
  readonly key: string;
  /** The view's state before; null: this actor has just read the object (first look, restart, new owner). */
  readonly from: string | null;
  /** The view's state now; null: the object is gone (its finalizer removed), `view` is its last. */
  readonly to: string | null;
  readonly view: MachineView;
}
