import type { HardwareDetails } from '../../../api/index.ts';
import { parseBmcAddress } from '../../../api/index.ts';
import { versionSupports } from '../client/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { IronicNode } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { heldByFault, leaveMaintenanceNow, nodeReason } from './node-reason.ts';
import { continuing, done, failed, needsRegistration } from './outcome.ts';

// forceReboot (BMO's InspectHardware forceReboot, a reboot annotation with force:true): an
// inspection waiting for its ramdisk is aborted, so the host boots a new preprovisioning image;
// the abort is reported as started (the machine then removes the reboot annotation) and the node,
// now in inspect failed, is started again by the next call.
export async function inspect(ctx: StepContext, host: HostData, o: { restartOnFailure: boolean; refresh: boolean; forceReboot?: boolean }): Promise<OpResult> {
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  switch (node.provision_state) {
    case 'available':
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      await ctx.client.setProvisionState(node.uuid, 'manage');
      return continuing(ctx.polls.shortMs);
    case 'manageable':
      if (node.target_provision_state) return continuing(ctx.polls.shortMs);
      // Inspected already (and no fresh inspection asked for): read what it found.
      if (node.inspection_finished_at && !o.refresh && !wasAborted(node)) return done({ hardware: await hardwareOf(ctx, node) });
      if (node.fault) return heldByFault(node, ctx.polls.longMs);
      if (node.maintenance) return leaveMaintenanceNow(ctx, node);
      {
        const wanted = await inspectInterfaceFor(ctx, host);
        if (!wanted.ok) return failed(wanted.message, null);
        if (wanted.value !== null && node.inspect_interface !== wanted.value) {
          await ctx.client.patchNode(node.uuid, [{ op: 'replace', path: '/inspect_interface', value: wanted.value }]);
        }
      }
      await ctx.client.setProvisionState(node.uuid, 'inspect');
      return { kind: 'continuing', afterMs: ctx.polls.longMs, started: true };
    case 'inspect wait':
      if (o.forceReboot) {
        await ctx.client.setProvisionState(node.uuid, 'abort');
        return { kind: 'continuing', afterMs: ctx.polls.shortMs, started: true };
      }
      return continuing(inspectPoll(ctx, host));
    // Not abortable before the ramdisk is waited for (BMO polls it, forced or not).
    case 'inspecting':
      return continuing(inspectPoll(ctx, host));
    case 'inspect failed':
      if (o.restartOnFailure || wasAborted(node)) {
        await ctx.client.setProvisionState(node.uuid, 'manage');
        return continuing(ctx.polls.shortMs);
      }
      return failed(`inspection failed: ${nodeReason(node)}`);
    // Registration's to finish (manage): the node went back to enroll, or was never managed.
    case 'enroll':
      return needsRegistration;
    default:
      // A flow Ironic runs and ends by itself: polled until the node is back.
      if (LEAVES_BY_ITSELF.has(node.provision_state)) return continuing(ctx.polls.shortMs);
      // BMO logs "unexpected provision state" and retries for ever (a transient error); an existing
      // node already deployed (a rerun against the same Ironic) then held its host in inspecting
      // without a word. Said instead, with what to do; retried after the backoff.
      return failed(cannotInspect(node));
  }
}

// Ironic states a node leaves without being asked (ironic/common/states.py: the *ing and *wait
// states of a flow its conductor drives, which end in a stable or failed state, or time out).
const LEAVES_BY_ITSELF: ReadonlySet<string> = new Set([
  'verifying', 'cleaning', 'clean wait', 'deploying', 'wait call-back', 'deleting', 'adopting',
  'rescuing', 'rescue wait', 'unrescuing', 'servicing', 'service wait',
]);

/** Why inspection cannot start from the node's state, naming the node and what the user can do. */
function cannotInspect(node: IronicNode): string {
  const which = node.name ? `${node.name} (${node.uuid})` : node.uuid;
  const head = `cannot inspect: Ironic node ${which} is in provision state "${node.provision_state}", which inspection cannot start from and Ironic does not leave by itself`;
  const reason = node.last_error?.trim() ? ` (last error: ${node.last_error.trim()})` : '';
  const what = node.provision_state === 'active'
    ? 'the node is already deployed (left by an earlier run or another deployment?): set spec.externallyProvisioned: true to adopt it as it is, or undeploy it (`baremetal node undeploy`) or delete it in Ironic to inspect and deploy it again'
    : /hold$/.test(node.provision_state)
      ? 'it waits for an operator: `baremetal node unhold` it, or abort its flow'
      : 'bring it back to manageable in Ironic (`baremetal node manage`, or undeploy/abort its flow), or delete the node to register it anew';
  return `${head}${reason}; ${what}; the inspection is retried after the backoff`;
}

// BMO: an out-of-band inspection is over in seconds, and polled at the short delay.
function inspectPoll(ctx: StepContext, host: HostData): number {
  return host.spec.inspectionMode === 'fast' ? ctx.polls.shortMs : ctx.polls.longMs;
}

type Wanted = { ok: true; value: string | null } | { ok: false; message: string };

/**
 * The inspect interface spec.inspectionMode asks for, set before each inspection as BMO's
 * startInspection does (the mode may have changed since the node was created): the BMC's
 * out-of-band one for fast, agent otherwise. Null leaves the node's: the fake-hardware override,
 * an unparsable address (registration reports it), or agent on an Ironic before 1.84, which
 * lacks it and keeps its default.
 */
async function inspectInterfaceFor(ctx: StepContext, host: HostData): Promise<Wanted> {
  if (ctx.override) return { ok: true, value: null };
  const bmc = parseBmcAddress(host.spec.bmc?.address ?? '');
  if (!bmc.ok) return { ok: true, value: null };
  if (host.spec.inspectionMode === 'fast') {
    if (!bmc.bmc.supportsOutOfBandInspect) return { ok: false, message: `BMC driver ${bmc.bmc.scheme} does not support fast (out-of-band) inspection (spec.inspectionMode)` };
    return { ok: true, value: bmc.bmc.interfaces.inspect };
  }
  return { ok: true, value: versionSupports((await ctx.client.negotiated()).version, 'inspection-callback') ? 'agent' : null };
}

// Redfish inspection stores memory_mb and local_gb as strings ("65536"), cpus as a number.
function wholeNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
}

function wasAborted(node: IronicNode): boolean {
  return /aborted/i.test(node.last_error ?? '');
}

// Ironic keeps the inventory the agent sent; out-of-band (redfish) and fake inspection leave
// none, then the node's properties and the ports inspection created are all there is.
async function hardwareOf(ctx: StepContext, node: IronicNode): Promise<HardwareDetails> {
  const inventory = (await ctx.client.getInventory(node.uuid)) as { inventory?: Inventory } | null;
  const inv = inventory?.inventory;
  const props = (node.properties ?? {}) as Record<string, unknown>;
  if (!inv) {
    const memoryMb = wholeNumber(props['memory_mb']);
    const cpus = wholeNumber(props['cpus']);
    const localGb = wholeNumber(props['local_gb']);
    const ports = await ctx.client.listPorts({ node: node.uuid });
    return {
      ...(memoryMb !== undefined ? { ramMebibytes: memoryMb } : {}),
      cpu: { arch: String(props['cpu_arch'] ?? ''), ...(cpus !== undefined ? { count: cpus } : {}) },
      ...(ports.length > 0 ? { nics: ports.map((p) => ({ mac: p.address })) } : {}),
      // local_gb is the root disk as Ironic sizes it (GiB, one less than the disk): the one disk known.
      ...(localGb ? { storage: [{ sizeBytes: localGb * 1024 ** 3 }] } : {}),
    };
  }
  const ramMebibytes = goInt(inv.memory?.physical_mb);
  const clockMegahertz = goRound(parseFloat(inv.cpu?.frequency ?? ''));
  return {
    ...(ramMebibytes !== undefined ? { ramMebibytes } : {}),
    cpu: { arch: inv.cpu?.architecture ?? '', model: inv.cpu?.model_name ?? '', count: goInt(inv.cpu?.count) ?? 0, ...(clockMegahertz ? { clockMegahertz } : {}) },
    nics: (inv.interfaces ?? []).map((i) => {
      const speedMbps = goInt(i.speed_mbps);
      return {
        name: i.name,
        ...(i.mac_address === undefined || MAC.test(i.mac_address) ? { mac: i.mac_address } : {}),
        ip: i.ipv4_address ?? '',
        // BMO's getNICDetails: SpeedMbps / 1000, Go's integer division (2500 Mbit/s is 2 Gbit/s).
        ...(speedMbps !== undefined ? { speedGbps: Math.trunc(speedMbps / 1000) } : {}),
      };
    }),
    storage: (inv.disks ?? []).map((d) => ({ name: d.name, sizeBytes: goInt(d.size), rotational: d.rotational })),
    ...(inv.system_vendor ? { systemVendor: { manufacturer: inv.system_vendor.manufacturer, productName: inv.system_vendor.product_name, serialNumber: inv.system_vendor.serial_number } } : {}),
    ...(inv.hostname ? { hostname: inv.hostname } : {}),
  };
}

// HardwareDetails holds BMO's Go types, and the CRDs type them so (integers where Go has an int,
// a MAC pattern): a value is brought to that type here, or the API server would refuse the status
// and the HardwareData. An inventory number with a fraction where gophercloud has an int (which
// Go would not decode at all) is truncated, as Go converts a float to an int.
function goInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) + 0 : undefined;
}

// BMO's getCPUDetails: the frequency string scanned as a float and math.Round'ed (half away from
// zero); unparseable is 0, which its omitempty leaves out.
function goRound(v: number): number | undefined {
  return Number.isFinite(v) ? Math.sign(v) * Math.round(Math.abs(v)) + 0 : undefined;
}

// BMO's NIC MAC pattern (unanchored, as controller-gen writes it): anything else is left out.
const MAC = /[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}/;

interface Inventory {
  memory?: { physical_mb?: number };
  cpu?: { architecture?: string; model_name?: string; count?: number; frequency?: string };
  interfaces?: Array<{ name?: string; mac_address?: string; ipv4_address?: string; speed_mbps?: number }>;
  disks?: Array<{ name?: string; size?: number; rotational?: boolean }>;
  system_vendor?: { manufacturer?: string; product_name?: string; serial_number?: string };
  hostname?: string;
}
