import type { HostData } from '../../../ports/index.ts';
import type { CreateNode, IronicNode, JsonPatch } from '../client/index.ts';
import type { StepContext } from './context.ts';

const DEPLOY_IMAGE_KEYS = ['deploy_kernel', 'deploy_ramdisk', 'deploy_iso'] as const;
const BOOT_CAPABILITIES = ['boot_mode:', 'secure_boot:'];

/**
 * BMO's configureNode, run by Register on a node that is in no flow of its own: the fields a
 * node was created with that the host (or the controller's configuration) still decides, put
 * back where they differ. A node registered before the deploy image URLs or
 * spec.automatedCleaningMode changed, or restored from an old Ironic database, kept the old ones.
 * Each driver_info key is patched on its own: Ironic never returns the BMC password, so
 * driver_info is never written whole here. `wanted` is the body the node would be created with.
 */
export async function configureNode(ctx: Pick<StepContext, 'client'>, host: HostData, node: IronicNode, wanted: CreateNode): Promise<IronicNode> {
  const ops = [...deployImageOps(node, wanted), ...automatedCleanOps(host, node), ...propertyOps(node, wanted)];
  if (ops.length === 0) return node;
  return ctx.client.patchNode(node.uuid, ops);
}

// As BMO's setDeployImage: when the controller names deploy images, the node has those and no
// others (a switch from an ISO to kernel and ramdisk leaves no stale ISO). None named: left alone.
function deployImageOps(node: IronicNode, wanted: CreateNode): JsonPatch[] {
  const want = wanted.driver_info ?? {};
  if (!DEPLOY_IMAGE_KEYS.some((k) => want[k] !== undefined)) return [];
  const have = node.driver_info ?? {};
  const ops: JsonPatch[] = [];
  for (const key of DEPLOY_IMAGE_KEYS) {
    if (want[key] !== undefined && have[key] !== want[key]) ops.push({ op: 'add', path: `/driver_info/${key}`, value: want[key] });
    else if (want[key] === undefined && have[key] !== undefined && have[key] !== null) ops.push({ op: 'remove', path: `/driver_info/${key}` });
  }
  return ops;
}

// A field the node's answer lacks (undefined, unlike Ironic's null for "conductor default") was
// not read, so there is nothing known to correct: only what was read is compared.
function automatedCleanOps(host: HostData, node: IronicNode): JsonPatch[] {
  if (node.automated_clean === undefined) return [];
  const wanted = host.spec.automatedCleaningMode !== 'disabled';
  return node.automated_clean === wanted ? [] : [{ op: 'replace', path: '/automated_clean', value: wanted }];
}

// The boot mode capabilities replace their own keys only: inspection adds capabilities of its
// own (cpu_vt, ...) that stay (BMO's buildCapabilitiesValue). cpu_arch only where the host names one.
function propertyOps(node: IronicNode, wanted: CreateNode): JsonPatch[] {
  if (node.properties === undefined) return [];
  const have = node.properties;
  const want = wanted.properties ?? {};
  const ops: JsonPatch[] = [];
  const capabilities = withBootCapabilities(have['capabilities'], String(want['capabilities'] ?? ''));
  if (capabilities !== have['capabilities']) ops.push({ op: 'add', path: '/properties/capabilities', value: capabilities });
  if (want['cpu_arch'] !== undefined && have['cpu_arch'] !== want['cpu_arch']) ops.push({ op: 'add', path: '/properties/cpu_arch', value: want['cpu_arch'] });
  return ops;
}

function withBootCapabilities(current: unknown, boot: string): string {
  if (typeof current !== 'string' || current === '') return boot;
  const kept = current.split(',').filter((item) => !BOOT_CAPABILITIES.some((prefix) => item.startsWith(prefix)));
  return [...kept, boot].join(',');
}
