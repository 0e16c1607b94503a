import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClockMode } from './conductor.ts';
import { Conductor } from './conductor.ts';
import type { BiosSetting, FirmwareComponent, NodeRecord } from './node.ts';
import type { HardwareDefaults, PlanContext } from './plans.ts';
export type { BiosDefinition } from './plans.ts';
import type { Shared } from './server.ts';
import { handle } from './server.ts';
import { Store } from './state.ts';
import type { StepKind } from './steps.ts';
import type { Microversion } from './versions.ts';
import { parseVersion, text } from './versions.ts';

// An in-process Ironic API for tests that need API versions the installed Ironic (21.4, 1.82)
// lacks: firmware (1.86) and servicing (1.87). It follows Ironic's source (each file cites what
// it follows) and, where it overlaps with 21.4, what 21.4 was seen to answer
// (test/ironic-api/faithful.test.ts runs the same calls against both).

export interface IronicApiServerOptions {
  /** The highest microversion offered, "1.82" (acts as Ironic 21.4) to "1.96" (29.0). Default 1.87. */
  maxVersion?: string;
  /**
   * `auto` (default): conductor work advances one phase every `phaseDelayMs` (default 5 ms).
   * `manual`: nothing advances until the test calls `advance()` / `settle()`.
   */
  clock?: ClockMode;
  phaseDelayMs?: number;
  /**
   * The BIOS settings (a value, or a value with its registry entry) and firmware versions
   * verification finds on every node. Default: a few Enumeration/Integer/String attributes
   * (ProcTurboMode, LogicalProc, SriovGlobalEnable, BootMode, NumCores, read-only
   * SystemModelName) and firmware bios 1.0.0, bmc 1.0.0.
   */
  hardware?: Partial<HardwareDefaults>;
  /** What inspection stores for a node (GET .../inventory); default: nothing, as the fake inspect interface. */
  inventory?: (node: NodeInspection) => { inventory: unknown; plugin_data?: unknown } | null;
}

/** A copy of what the server holds for a node, for assertions. */
export interface NodeInspection {
  readonly id: number;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly provisionState: string;
  readonly targetProvisionState: string | null;
  readonly bios: Readonly<Record<string, string | null>>;
  readonly firmware: readonly FirmwareComponent[];
}

export interface StepFault {
  /** Only on this node (uuid or name); default every node. */
  node?: string;
  /** Only as a clean or a service step; default both. */
  kind?: StepKind;
  /** The error the step raises; default "Simulated failure of <step>". */
  message?: string;
  /** How many runs fail before it passes again; default every run until cleared. */
  times?: number;
}

export interface IronicApiServer {
  /** http://127.0.0.1:PORT (no /v1), as test/support/ironic.ts's `url`. */
  readonly url: string;
  readonly maxVersion: string;
  /** The node by uuid or name, or null. */
  node(ref: string): NodeInspection | null;
  /** Makes step `<interface>.<step>` fail; returns a function that clears the fault. */
  failStep(stepId: string, fault?: StepFault): () => void;
  /** Manual clock: runs the next phase of the node's work (or every node's); answers how many ran. */
  advance(ref?: string): number;
  /** Manual clock: advances until no work is left. */
  settle(): void;
  close(): Promise<void>;
}

const onOff = (value: string) => ({ value, attribute_type: 'Enumeration' as const, allowable_values: ['Enabled', 'Disabled'] });

const DEFAULT_HARDWARE: HardwareDefaults = {
  bios: {
    ProcTurboMode: onOff('Enabled'),
    LogicalProc: onOff('Enabled'),
    SriovGlobalEnable: onOff('Disabled'),
    BootMode: { value: 'Uefi', attribute_type: 'Enumeration', allowable_values: ['Uefi', 'Bios'] },
    NumCores: { value: '8', attribute_type: 'Integer', lower_bound: 1, upper_bound: 64 },
    SystemModelName: { value: 'Test Server', attribute_type: 'String', read_only: true },
  },
  firmware: { bios: '1.0.0', bmc: '1.0.0' },
};

function inspect(n: NodeRecord): NodeInspection {
  const fields = structuredClone(n.fields);
  return {
    id: n.id,
    fields,
    provisionState: n.fields.provision_state,
    targetProvisionState: n.fields.target_provision_state,
    bios: Object.fromEntries(n.bios.map((b: BiosSetting) => [b.name, b.value])),
    firmware: n.firmware.map((c) => ({ ...c })),
  };
}

export async function startIronicApiServer(opts: IronicApiServerOptions = {}): Promise<IronicApiServer> {
  const max: Microversion | null = parseVersion(opts.maxVersion ?? '1.87');
  // The state machine and steps are modelled from 21.4.0 to 29.0.0; a later maximum would offer
  // transitions (32.0's service failed --abort--> active) the server does not have.
  if (max === null || max.major !== 1 || max.minor < 82 || max.minor > 96) {
    throw new Error(`startIronicApiServer: maxVersion must be from 1.82 (Ironic 21.4) to 1.96 (29.0), like "1.87"; got ${JSON.stringify(opts.maxVersion)}`);
  }
  const store = new Store();
  const faults: (StepFault & { id: string; left: number })[] = [];
  const conductor = new Conductor(opts.clock ?? 'auto', opts.phaseDelayMs ?? 5);
  const plan: PlanContext = {
    serverMax: max.minor,
    now: () => new Date().toISOString().replace('Z', '+00:00'),
    hardware: { ...DEFAULT_HARDWARE, ...opts.hardware },
    inventoryFor: (n) => {
      const inv = opts.inventory?.(inspect(n)) ?? null;
      return inv === null ? null : { inventory: inv.inventory, plugin_data: inv.plugin_data ?? {} };
    },
    faultFor: (n, kind, id) => {
      const f = faults.find((x) => x.id === id && x.left > 0 && (x.kind === undefined || x.kind === kind) && (x.node === undefined || x.node === n.fields.uuid || x.node === n.fields.name));
      if (!f) return null;
      f.left--;
      return f.message ?? `Simulated failure of ${id}`;
    },
  };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const shared: Shared = { store, conductor, plan, max, base: url };
  server.on('request', (req, res) => void handle(req, res, shared));

  return {
    url,
    maxVersion: text(max),
    node(ref) {
      const n = store.find(ref);
      return n === null ? null : inspect(n);
    },
    failStep(id, f = {}) {
      if (!/^[a-z_]+\.[a-z_]+$/.test(id)) throw new Error(`failStep: a step is named <interface>.<step>, like "firmware.update"; got ${JSON.stringify(id)}`);
      const entry = { ...f, id, left: f.times ?? Number.POSITIVE_INFINITY };
      faults.push(entry);
      return () => {
        entry.left = 0;
      };
    },
    advance: (ref) => conductor.advance(ref === undefined ? undefined : (store.find(ref)?.fields.uuid ?? ref)),
    settle: () => conductor.settle(),
    async close() {
      conductor.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
