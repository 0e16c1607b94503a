import type { Logger } from '../../../ports/index.ts';
import type { IronicClient, IronicNode } from '../client/index.ts';
import type { DeployImages, DriverOverride } from './node-spec.ts';
import type { Polls } from './outcome.ts';

export interface StepContext {
  readonly client: IronicClient;
  readonly log: Logger;
  readonly polls: Polls;
  readonly override: DriverOverride | null;
  readonly deploy: DeployImages;
  // Check image URLs before deploying; off where images are not reachable from the controller.
  readonly imageCheck: { readonly enabled: boolean; readonly timeoutMs: number };
  // Nodes we asked to clean in prepare, to tell "cleaned" from "not yet cleaned" (both manageable).
  readonly cleaning: Set<string>;
  // Nodes we asked to service, to tell "serviced" from "not yet serviced" (both active).
  readonly servicing: Set<string>;
  // "<node uuid> <mac>" pairs whose port exists: registration polls need not list ports again.
  readonly ports: Set<string>;
  // Node names this process sent a create for, with a digest of the driver_info it carried,
  // until the host's registration got an answer (register.ts). Never the credentials themselves.
  readonly created: Map<string, string>;
  // The node this call's owner fence read, for the call's first lookup (one GET a poll, not two).
  // macHeldBy: as find-node.ts's lookup tells it.
  readonly prefound?: { readonly node: IronicNode | null; readonly macHeldBy?: IronicNode; used: boolean };
}
