import type { Conductor } from './conductor.ts';
import { errors, fault } from './faults.ts';
import { fire } from './fire.ts';
import type { NodeRecord } from './node.ts';
import type { PlanContext } from './plans.ts';
import { adoptPlan, deployPlan, inspectPlan, providePlan, stepsPlan, tearDownPlan, verifyPlan } from './plans.ts';
import { eventOf, transition } from './state-machine.ts';
import type { UserStep } from './steps.ts';
import { checkSteps } from './step-schema.ts';
import type { Microversion } from './versions.ts';
import { allows, SINCE } from './versions.ts';

// PUT /v1/nodes/{node}/states/provision, in the order ironic/api/controllers/v1/node.py
// NodeStatesController.provision checks it (23.0.0), then the conductor's acceptance
// (conductor/manager.py do_node_deploy, do_node_tear_down, do_node_clean, do_node_service,
// do_provisioning_action), which fires the first event before the API answers 202.

/** The body arguments provision() takes (args.validate): service_steps from 23.0.0. */
export function provisionArgs(serverMax: number): string[] {
  const base = ['target', 'configdrive', 'clean_steps', 'deploy_steps', 'rescue_password', 'disable_ramdisk'];
  return serverMax >= SINCE.service ? [...base, 'service_steps'] : base;
}

/** "Unexpected arguments: x" (ironic/common/args.py): checked before the node is looked up. */
export function checkProvisionArgs(body: Record<string, unknown>, serverMax: number): void {
  const known = provisionArgs(serverMax);
  const unexpected = Object.keys(body).filter((k) => !known.includes(k));
  if (unexpected.length > 0) throw fault(400, `Unexpected arguments: ${unexpected.join(', ')}`);
  if (typeof body.target !== 'string') throw fault(400, body.target === undefined ? 'Missing argument: "target"' : `Argument "target" is not a string`);
}

export interface ProvisionDeps {
  readonly conductor: Conductor;
  readonly plan: PlanContext;
}

const STEP_TARGET = { clean_steps: 'clean', service_steps: 'service' } as const;

export function provision(node: NodeRecord, body: Record<string, unknown>, version: Microversion, deps: ProvisionDeps): void {
  const { conductor, plan } = deps;
  const max = plan.serverMax;
  const target = body.target as string;
  const uuid = node.fields.uuid;
  const state = node.fields.provision_state;

  if ((target === 'active' || target === 'rebuild') && node.fields.maintenance) throw errors.inMaintenance('provisioning', uuid);
  const event = eventOf(target, max);
  if (transition(state, event, max) === null) {
    // node.py: a locked node answers 409 rather than 400, for backward compatibility.
    if (node.fields.reservation) throw errors.locked(uuid, String(node.fields.reservation));
    throw errors.invalidState(target, uuid, state);
  }
  checkDisableRamdisk(target, body.disable_ramdisk, version);
  for (const [arg, verb] of Object.entries(STEP_TARGET)) {
    if (body[arg] && target !== verb) throw fault(400, `"${arg}" is only valid when setting target provision state to ${verb}`);
  }
  if (target === 'unhold' && !allows(version, SINCE.unhold)) throw errors.notAcceptable();
  if (target === 'service' && !allows(version, SINCE.service)) throw errors.notAcceptable();
  for (const [arg, verb] of Object.entries(STEP_TARGET)) {
    if (target !== verb) continue;
    if (!body[arg] || (Array.isArray(body[arg]) && body[arg].length === 0)) throw fault(400, `"${arg}" is required when setting target provision state to ${verb}`);
    const bad = checkSteps(body[arg], verb, max);
    if (bad !== null) throw fault(400, bad);
  }
  // The RPC call takes the node's lock first (task_manager.acquire): NodeLocked while a worker has it.
  if (node.fields.reservation) throw errors.locked(uuid, String(node.fields.reservation));
  // The conductor's own refusals of a node in maintenance (manager.py do_node_clean,
  // do_node_service). "provide" is let through: [conductor]allow_provisioning_in_maintenance
  // defaults to true (conf/conductor.py), as the faithful test saw on 21.4.
  const maintenanceOp = ({ clean: 'cleaning', service: 'service' } as Record<string, string>)[target];
  if (maintenanceOp !== undefined && node.fields.maintenance) throw errors.inMaintenance(maintenanceOp, uuid);

  const now = plan.now();
  const begin = (explicitTarget?: 'manageable'): void => {
    node.fields.last_error = null; // process_event(callback=...) starts with last_error None
    fire(node, event, max, now, explicitTarget);
  };
  const disableRamdisk = body.disable_ramdisk === true;
  switch (event) {
    case 'manage':
      if (state === 'enroll') {
        begin();
        conductor.start(node, verifyPlan(plan));
      } else {
        fire(node, event, max, now); // manager.py do_provisioning_action: a plain event
      }
      return;
    case 'provide':
      begin();
      conductor.start(node, providePlan(plan));
      return;
    case 'deploy':
    case 'rebuild':
      begin();
      conductor.start(node, deployPlan(plan, body.configdrive));
      return;
    case 'delete':
      begin();
      conductor.start(node, tearDownPlan(plan));
      return;
    case 'inspect':
      begin();
      node.fields.inspection_started_at = now;
      node.fields.inspection_finished_at = null;
      conductor.start(node, inspectPlan(plan));
      return;
    case 'adopt':
      begin();
      conductor.start(node, adoptPlan(plan));
      return;
    case 'clean':
      begin('manageable');
      conductor.start(node, stepsPlan(plan, 'clean', body.clean_steps as UserStep[], disableRamdisk));
      return;
    case 'service':
      begin();
      conductor.start(node, stepsPlan(plan, 'service', body.service_steps as UserStep[], disableRamdisk));
      return;
    case 'abort':
      abort(node, deps);
      return;
    default:
      fire(node, event, max, now);
  }
}

/**
 * manager.py do_provisioning_action / _do_abort (23.0.0 to 29.0.0): in `clean wait` the clean is
 * aborted with last_error "By request, the clean operation was aborted[ during or after the
 * completion of step "<id>"]" (cleaning.py get_last_error); a running step is not abortable
 * (redfish steps are declared abortable=False), so the abort is only flagged (abort_after) and
 * happens when the step ends. Any other abort (service wait, inspect wait) is the plain event:
 * `service wait` --abort--> `service failed`, last_error untouched.
 */
function abort(node: NodeRecord, { conductor, plan }: ProvisionDeps): void {
  const now = plan.now();
  if (node.fields.provision_state === 'clean wait') {
    const step = node.fields.clean_step as Record<string, unknown> | null;
    if (step && Object.keys(step).length > 0) {
      node.fields.clean_step = { ...step, abort_after: true };
      return;
    }
    conductor.cancel(node.fields.uuid);
    node.fields.last_error = 'By request, the clean operation was aborted';
    fire(node, 'abort', plan.serverMax, now, node.fields.target_provision_state === 'manageable' ? 'manageable' : undefined);
    return;
  }
  conductor.cancel(node.fields.uuid);
  fire(node, 'abort', plan.serverMax, now);
}

/**
 * api/controllers/v1/utils.py check_allow_clean_disable_ramdisk (23.0.0 to 29.0.0): only a manual
 * clean takes disable_ramdisk, from 1.70 (a service takes it from 1.108, beyond this server).
 */
function checkDisableRamdisk(target: string, disableRamdisk: unknown, version: Microversion): void {
  if (disableRamdisk === undefined || disableRamdisk === null) return;
  if (target !== 'clean') throw fault(400, 'disable_ramdisk is supported only with manual cleaning');
  if (!allows(version, 70)) throw fault(406, 'disable_ramdisk is not acceptable in this API version');
}
