import type { Phase } from './conductor.ts';
import { fire } from './fire.ts';
import type { BiosRegistry, BiosSetting, NodeRecord } from './node.ts';
import { pyRepr } from './py-repr.ts';
import type { StepKind, UserStep } from './steps.ts';
import { StepFailure, stepDef, stepId, validateUserSteps } from './steps.ts';

// What the conductor does for each provision verb after the API accepted it, as phases (one
// per advance). Each plan cites the conductor code it follows. The first event is fired by the
// API handler itself (the conductor's process_event inside the RPC call, before it answers 202).

export interface PlanContext {
  readonly serverMax: number;
  readonly now: () => string;
  /** The injected failure of a step on this node, if a test asked for one (message), else null. */
  readonly faultFor: (node: NodeRecord, kind: StepKind, id: string) => string | null;
  /** What inspection finds for this node (the fake inspect interface stores nothing: null). */
  readonly inventoryFor: (node: NodeRecord) => { inventory: unknown; plugin_data: unknown } | null;
  readonly hardware: HardwareDefaults;
}

/** A BIOS attribute as a test describes it: its value, or its value and registry entry. */
export type BiosDefinition = string | ({ value: string } & Partial<BiosRegistry>);

export interface HardwareDefaults {
  readonly bios: Readonly<Record<string, BiosDefinition>>;
  readonly firmware: Readonly<Record<string, string>>;
}

const done = (ctx: PlanContext, event: string, target?: 'manageable'): Phase => (n) => fire(n, event, ctx.serverMax, ctx.now(), target);

/**
 * enroll -> verifying -> manageable (conductor/verify.py do_node_verify). Verification also caches
 * the BIOS settings and firmware components (utils.node_cache_bios_settings,
 * node_cache_firmware_components) when the node has such interfaces.
 */
export function verifyPlan(ctx: PlanContext): Phase[] {
  return [
    (n) => {
      const now = ctx.now();
      if (n.fields.bios_interface !== 'no-bios' && n.bios.length === 0) {
        n.bios = Object.entries(ctx.hardware.bios).map(([name, def]) => biosSetting(name, def));
      }
      const fw = n.fields.firmware_interface;
      if (typeof fw === 'string' && fw !== 'no-firmware' && n.firmware.length === 0) {
        n.firmware = Object.entries(ctx.hardware.firmware).map(([component, v]) => ({ component, initial_version: v, current_version: v, last_version_flashed: null, created_at: now, updated_at: null }));
      }
      fire(n, 'done', ctx.serverMax, now);
    },
  ];
}

/** manageable -> cleaning -> available: automated cleaning, disabled here ([conductor]automated_clean = false). */
export function providePlan(ctx: PlanContext): Phase[] {
  return [done(ctx, 'done')];
}

/** available -> deploying -> active (fake deploy interface: no wait call-back, power untouched). */
export function deployPlan(ctx: PlanContext, configdrive: unknown): Phase[] {
  return [
    (n) => {
      if (configdrive !== undefined) n.fields.instance_info = { ...(n.fields.instance_info as object), configdrive: '******' };
      fire(n, 'done', ctx.serverMax, ctx.now());
    },
  ];
}

/** active -> deleting -> cleaning -> available (manager.py _do_node_tear_down, then automated clean). */
export function tearDownPlan(ctx: PlanContext): Phase[] {
  return [
    (n) => {
      n.fields.instance_info = {};
      n.fields.instance_uuid = null;
      fire(n, 'clean', ctx.serverMax, ctx.now());
    },
    done(ctx, 'done'),
  ];
}

/** manageable -> inspecting -> manageable (conductor/inspection.py inspect_hardware, synchronous fake). */
export function inspectPlan(ctx: PlanContext): Phase[] {
  return [
    (n) => {
      n.inventory = ctx.inventoryFor(n);
      n.fields.inspection_finished_at = ctx.now();
      fire(n, 'done', ctx.serverMax, ctx.now());
    },
  ];
}

/** manageable -> adopting -> active (manager.py _do_adoption). */
export function adoptPlan(ctx: PlanContext): Phase[] {
  return [done(ctx, 'done')];
}

const KIND = {
  clean: { field: 'clean_step', verb: 'clean', ing: 'cleaning', fault: 'clean failure' },
  service: { field: 'service_step', verb: 'service', ing: 'servicing', fault: 'service failure' },
} as const;

/**
 * A manual clean (conductor/cleaning.py do_node_clean, do_next_clean_step) or a service
 * (conductor/servicing.py do_node_service, do_next_service_step):
 * - the user's steps are validated against the driver's (steps.py); a refusal fails the node
 *   with "Cannot clean|service node <uuid>: <errors>" and no maintenance;
 * - unless disable_ramdisk, the ramdisk boots first: the node waits (`clean wait` /
 *   `service wait`) for the agent, then resumes;
 * - each step is recorded in clean_step / service_step and run; an asynchronous step (firmware
 *   update) waits again until it reports back;
 * - a failing step sets maintenance, fault ("clean failure" / "service failure"), maintenance_reason
 *   and last_error to "Node <uuid> failed step <step>: <error>" and the node fails
 *   (utils.cleaning_error_handler / servicing_error_handler);
 * - at the end the step field is emptied and the node returns: manageable (manual clean, event
 *   "manage") or active (service, event "done").
 */
export function stepsPlan(ctx: PlanContext, kind: StepKind, steps: readonly UserStep[], disableRamdisk: boolean): Phase[] {
  const k = KIND[kind];
  const target = kind === 'clean' ? 'manageable' : undefined;
  const fail = (n: NodeRecord, msg: string, maintenance: boolean): false => {
    if (maintenance) {
      n.fields.fault = k.fault;
      n.fields.maintenance = true;
      n.fields.maintenance_reason ??= msg;
    }
    n.fields[k.field] = {};
    n.fields.last_error = msg;
    fire(n, 'fail', ctx.serverMax, ctx.now(), target);
    return false;
  };
  const phases: Phase[] = [];
  phases.push((n) => {
    const errors = validateUserSteps(steps, kind, ctx.serverMax);
    if (errors.length > 0) return fail(n, `Cannot ${k.verb} node ${n.fields.uuid}: ${errors.join('; ')}`, false);
    if (!disableRamdisk) fire(n, 'wait', ctx.serverMax, ctx.now(), target);
    return true;
  });
  if (!disableRamdisk) phases.push((n) => fire(n, 'resume', ctx.serverMax, ctx.now(), target));
  steps.forEach((s, i) => {
    phases.push((n) => {
      n.fields[k.field] = { ...s };
      const def = stepDef(s, kind, ctx.serverMax);
      try {
        const injected = ctx.faultFor(n, kind, stepId(s));
        if (injected !== null) throw new StepFailure(injected);
        def?.run(n, s.args ?? {}, ctx.now());
      } catch (err) {
        if (!(err instanceof StepFailure)) throw err;
        return fail(n, `Node ${n.fields.uuid} failed step ${pyRepr(s)}: ${err.message}`, true);
      }
      if (def?.async) fire(n, 'wait', ctx.serverMax, ctx.now(), target);
      return true;
    });
    if (stepDef(s, kind, ctx.serverMax)?.async) {
      const last = i === steps.length - 1;
      phases.push((n) => {
        // cleaning.py do_next_clean_step: an abort flagged during a step takes effect when it ends,
        // unless it was the last step.
        const current = n.fields[k.field] as Record<string, unknown>;
        if (kind === 'clean' && current.abort_after === true && !last) {
          n.fields[k.field] = {};
          n.fields.last_error = `By request, the clean operation was aborted during or after the completion of step "${stepId(s)}"`;
          fire(n, 'fail', ctx.serverMax, ctx.now(), target);
          return false;
        }
        fire(n, 'resume', ctx.serverMax, ctx.now(), target);
        return true;
      });
    }
  });
  phases.push((n) => {
    n.fields[k.field] = {};
    fire(n, kind === 'clean' ? 'manage' : 'done', ctx.serverMax, ctx.now(), target);
  });
  return phases;
}

const NO_REGISTRY: BiosRegistry = {
  attribute_type: null, allowable_values: null, lower_bound: null, upper_bound: null,
  min_length: null, max_length: null, read_only: null, reset_required: null, unique: null,
};

// A bare string is a writable String attribute.
function biosSetting(name: string, def: BiosDefinition): BiosSetting {
  if (typeof def === 'string') return { name, value: def, factory: def, registry: { ...NO_REGISTRY, attribute_type: 'String', read_only: false } };
  const { value, ...registry } = def;
  return { name, value, factory: value, registry: { ...NO_REGISTRY, read_only: false, ...registry } };
}
