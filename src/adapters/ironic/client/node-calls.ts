import type { ListAll } from './answers.ts';
import { orNullOn404, parse } from './answers.ts';
import type { Call, Send } from './call.ts';
import { seg } from './call.ts';
import type { IronicError } from './errors.ts';
import type { Feature } from './features.ts';
import { NODE_FIELD_FEATURES } from './features.ts';
import type { CreateNode, JsonPatch, NodeInventory as NodeInventoryT, ValidationResult } from './node.ts';
import { IronicNode, NodeInventory, NodeList, ValidateResult } from './node.ts';
import type { PowerTarget, ProvisionExtra, ProvisionTarget } from './states.ts';

// The calls on /v1/nodes: the node itself, its states, maintenance and inventory.

export interface NodeCalls {
  createNode(body: CreateNode): Promise<IronicNode>;
  /** By UUID or name; null when Ironic has no such node. */
  getNode(ref: string): Promise<IronicNode | null>;
  /** Every page (follows `next`). `limit` is the page size; `fields` always gains uuid and provision_state. */
  listNodes(q?: { fields?: string[]; provisionState?: string; limit?: number; detail?: boolean }): Promise<IronicNode[]>;
  patchNode(ref: string, ops: JsonPatch[]): Promise<IronicNode>;
  /** A node that is already gone is fine. */
  deleteNode(ref: string): Promise<void>;
  validateNode(ref: string): Promise<ValidationResult>;
  setProvisionState(ref: string, target: ProvisionTarget, extra?: ProvisionExtra): Promise<void>;
  setPowerState(ref: string, target: PowerTarget, timeoutSeconds?: number): Promise<void>;
  /** The RAID a node's next RAID clean steps build (`PUT states/raid`: Ironic refuses a PATCH of target_raid_config). */
  setTargetRaidConfig(ref: string, config: Readonly<Record<string, unknown>>): Promise<void>;
  setMaintenance(ref: string, reason: string): Promise<void>;
  unsetMaintenance(ref: string): Promise<void>;
  /** What inspection stored; null when there is none (404). A missing node still throws not-found. */
  getInventory(ref: string): Promise<NodeInventoryT | null>;
}

/** What the node calls need of the client: the request core, the version gate, paging. */
export interface NodeCallDeps {
  readonly request: Send;
  readonly gate: (c: Call, needs: readonly (readonly [string, Feature])[]) => Promise<void>;
  readonly listAll: ListAll;
}

// Both a missing node and missing inventory answer 404; Ironic's texts tell them apart
// ("Node inventory record for node 7 could not be found." vs "Node x could not be found.").
function nodeIsMissing(e: IronicError): boolean {
  const m = e.ironicMessage ?? '';
  return /could not be found/.test(m) && !/inventory/i.test(m);
}

/** The features a node body's (or patch's) top-level fields need beyond the baseline. */
function nodeFieldNeeds(fields: readonly string[]): [string, Feature][] {
  return fields.flatMap((f): [string, Feature][] => {
    const feature = NODE_FIELD_FEATURES[f];
    return feature === undefined ? [] : [[`node field ${f}`, feature]];
  });
}

/** The features a provision-state change needs: its verb and the extras it carries. */
function provisionNeeds(target: ProvisionTarget, extra: ProvisionExtra): [string, Feature][] {
  const needs: [string, Feature][] = [];
  if (target === 'service') needs.push(['provision target "service"', 'service']);
  if (target === 'unhold') needs.push(['provision target "unhold"', 'unhold']);
  if (typeof extra.configdrive === 'object') {
    needs.push(['a config drive given as an object', 'configdrive-dict']);
    if (extra.configdrive['vendor_data'] !== undefined) needs.push(['config drive vendor_data', 'configdrive-vendor-data']);
  }
  if (extra.deploySteps !== undefined) needs.push(['deploy_steps', 'deploy-steps']);
  if (extra.serviceSteps !== undefined && target !== 'service') needs.push(['service_steps', 'service']);
  // A firmware update step runs on the firmware interface, which Ironic before 1.86 does not have.
  if ([...(extra.cleanSteps ?? []), ...(extra.serviceSteps ?? [])].some(isFirmwareStep)) needs.push(['a firmware update step', 'firmware-interface']);
  if (extra.disableRamdisk !== undefined) needs.push(['disable_ramdisk', target === 'service' ? 'service-disable-ramdisk' : 'clean-disable-ramdisk']);
  return needs;
}

function isFirmwareStep(step: unknown): boolean {
  return typeof step === 'object' && step !== null && (step as { interface?: unknown }).interface === 'firmware';
}

export function nodeCalls({ request, gate, listAll }: NodeCallDeps): NodeCalls {
  return {
    async createNode(body) {
      const c: Call = { method: 'POST', path: '/v1/nodes', route: 'POST /v1/nodes', body };
      await gate(c, nodeFieldNeeds(Object.keys(body).filter((k) => body[k] !== undefined)));
      return parse(c, IronicNode, await request(c));
    },

    async getNode(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}`, route: 'GET /v1/nodes/{node}' };
      return orNullOn404(async () => parse(c, IronicNode, await request(c)));
    },

    async listNodes(q = {}) {
      const params = new URLSearchParams();
      if (q.fields !== undefined && q.fields.length > 0) {
        params.set('fields', [...new Set(['uuid', 'provision_state', ...q.fields])].join(','));
      } else if (q.detail) {
        params.set('detail', 'true');
      }
      if (q.provisionState !== undefined) params.set('provision_state', q.provisionState);
      if (q.limit !== undefined) params.set('limit', String(q.limit));
      const query = params.toString().replace(/%2C/g, ',');
      const nodes = await listAll('GET /v1/nodes', `/v1/nodes${query ? `?${query}` : ''}`, NodeList, (p) => p.nodes);
      return nodes as IronicNode[];
    },

    async patchNode(ref, ops) {
      const c: Call = { method: 'PATCH', path: `/v1/nodes/${seg(ref)}`, route: 'PATCH /v1/nodes/{node}', body: ops };
      await gate(c, nodeFieldNeeds(ops.filter((op) => op.op !== 'remove').map((op) => op.path.split('/')[1] ?? '')));
      return parse(c, IronicNode, await request(c));
    },

    async deleteNode(ref) {
      const c: Call = { method: 'DELETE', path: `/v1/nodes/${seg(ref)}`, route: 'DELETE /v1/nodes/{node}' };
      await orNullOn404(() => request(c));
    },

    async validateNode(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}/validate`, route: 'GET /v1/nodes/{node}/validate' };
      const parsed = parse(c, ValidateResult, await request(c));
      const out: ValidationResult = {};
      for (const [iface, r] of Object.entries(parsed)) out[iface] = { result: r.result, reason: r.reason ?? null };
      return out;
    },

    async setProvisionState(ref, target, extra = {}) {
      const body: Record<string, unknown> = { target };
      if (extra.configdrive !== undefined) body.configdrive = extra.configdrive;
      if (extra.cleanSteps !== undefined) body.clean_steps = extra.cleanSteps;
      if (extra.serviceSteps !== undefined) body.service_steps = extra.serviceSteps;
      if (extra.deploySteps !== undefined) body.deploy_steps = extra.deploySteps;
      if (extra.disableRamdisk !== undefined) body.disable_ramdisk = extra.disableRamdisk;
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/states/provision`, route: 'PUT /v1/nodes/{node}/states/provision', body };
      await gate(c, provisionNeeds(target, extra));
      await request(c);
    },

    async setPowerState(ref, target, timeoutSeconds) {
      const body = timeoutSeconds === undefined ? { target } : { target, timeout: timeoutSeconds };
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/states/power`, route: 'PUT /v1/nodes/{node}/states/power', body };
      await request(c);
    },

    async setTargetRaidConfig(ref, config) {
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/states/raid`, route: 'PUT /v1/nodes/{node}/states/raid', body: config };
      await request(c);
    },

    async setMaintenance(ref, reason) {
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/maintenance`, route: 'PUT /v1/nodes/{node}/maintenance', body: { reason } };
      await request(c);
    },

    async unsetMaintenance(ref) {
      const c: Call = { method: 'DELETE', path: `/v1/nodes/${seg(ref)}/maintenance`, route: 'DELETE /v1/nodes/{node}/maintenance' };
      await request(c);
    },

    async getInventory(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}/inventory`, route: 'GET /v1/nodes/{node}/inventory' };
      return orNullOn404(async () => parse(c, NodeInventory, await request(c)), nodeIsMissing);
    },
  };
}
