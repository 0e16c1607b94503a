// The agent's command table: "<extension>.<command>" → what it does and whether it runs
// asynchronously, following IPA's extensions (clean, deploy, standby, image, log). Step results
// echo the step, which Ironic compares with the step it is running.
import type { CommandSpec } from './command-log.ts';
import { commandResult } from './command-log.ts';
import type { EraseKind, RaidVolume, SimDisk } from './disk.ts';
import { AgentError, commandFailed } from './errors.ts';
import { CLEAN_STEPS, DEPLOY_STEPS, HARDWARE_MANAGER, HARDWARE_MANAGER_VERSION } from './steps.ts';
import { systemLogs } from './system-logs.ts';
import type { DownloadPolicy, WriteState } from './write-image.ts';
import { validateImageInfo, writeImage } from './write-image.ts';

export interface CommandContext {
  readonly disk: SimDisk;
  readonly write: WriteState;
  readonly journal: string[];
  /** How long asynchronous work takes (so RUNNING can be seen). */
  readonly workMs: number;
  /** How image and checksum downloads are retried. */
  readonly download: DownloadPolicy;
  /** The node as last given by lookup or a command (IPA's hardware.cache_node): its root device hints. */
  readonly node: { current: unknown };
  /** The ramdisk shut the machine down (standby.power_off) or rebooted it (standby.run_image). */
  powerOff(): void;
  reboot(): void;
}

type Params = Record<string, unknown>;
const obj = (v: unknown): Params => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Params) : {});
const sync = (run: (p: Params) => unknown): CommandSpec => ({ async: false, run: async (p) => run(p) });
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ERASE: Record<string, EraseKind> = { erase_devices: 'full', erase_devices_metadata: 'metadata', erase_devices_express: 'express' };

function raidVolumes(node: Params): RaidVolume[] {
  const target = obj(obj(node['driver_internal_info'])['target_raid_config']);
  const disks = Array.isArray(target['logical_disks']) ? target['logical_disks'] : obj(node['target_raid_config'])['logical_disks'];
  return (Array.isArray(disks) ? disks : []).map((d, i) => {
    const ld = obj(d);
    const size = ld['size_gb'];
    return {
      name: typeof ld['volume_name'] === 'string' ? ld['volume_name'] : `md${i}`,
      raidLevel: String(ld['raid_level'] ?? '1'),
      sizeGb: size === 'MAX' ? 'MAX' : Number(size ?? 0),
      controller: String(ld['controller'] ?? 'software'),
      isRootVolume: ld['is_root_volume'] === true,
    };
  });
}

/** One in-band step, clean or deploy; returns the step's own result. */
async function runStep(ctx: CommandContext, kind: 'clean' | 'deploy', step: Params, node: Params): Promise<unknown> {
  const name = String(step['step']);
  const args = obj(step['args']);
  ctx.journal.push(`${kind} step ${String(step['interface'])}.${name}`);
  const erase = ERASE[name];
  if (erase !== undefined) {
    await later(ctx.workMs);
    ctx.disk.erase(erase, name);
    return null;
  }
  switch (name) {
    case 'write_image':
      // IPA's write_image runs standby.prepare_image and returns its command_result.
      return commandResult('prepare_image', true, await writeImage(ctx.disk, ctx.write, args['image_info'], args['configdrive'], ctx.download, ctx.node.current));
    case 'delete_configuration':
      ctx.disk.setRaid([]);
      return null;
    case 'create_configuration':
    case 'apply_configuration': {
      const config = name === 'apply_configuration' ? obj(args['raid_config']) : {};
      const volumes = name === 'apply_configuration' ? raidVolumes({ target_raid_config: config }) : raidVolumes(node);
      ctx.disk.setRaid(volumes);
      return { logical_disks: volumes.map((v) => ({ raid_level: v.raidLevel, size_gb: v.sizeGb, controller: v.controller, is_root_volume: v.isRootVolume, volume_name: v.name })) };
    }
    case 'erase_pstore':
    case 'inject_files':
    case 'burnin_cpu':
    case 'burnin_disk':
    case 'burnin_memory':
    case 'burnin_network':
      await later(ctx.workMs);
      return null;
    default:
      throw new AgentError('HardwareManagerMethodNotFound', 500, 'No HardwareManager found to handle method', `Could not find method: ${name}`);
  }
}

// IPA's clean and deploy commands cache the node they are given; later steps read it.
const cacheNode = (ctx: CommandContext, p: Params): void => {
  const node = p['node'];
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) ctx.node.current = node;
};

const stepCommand = (ctx: CommandContext, kind: 'clean' | 'deploy'): CommandSpec => ({
  async: true,
  run: async (p) => {
    cacheNode(ctx, p);
    const step = obj(p['step']);
    // IPA raises a ValueError here, which reaches Ironic as a CommandExecutionError.
    if (!('step' in step)) throw commandFailed(`Malformed ${kind}_step, no "step" key: ${JSON.stringify(step)}`);
    const result = await runStep(ctx, kind, step, obj(p['node']));
    return { [`${kind}_result`]: result, [`${kind}_step`]: step };
  },
});

export function commandTable(ctx: CommandContext): ReadonlyMap<string, CommandSpec> {
  return new Map<string, CommandSpec>([
    ['clean.get_clean_steps', sync((p) => (cacheNode(ctx, p), { clean_steps: { [HARDWARE_MANAGER]: CLEAN_STEPS }, hardware_manager_version: HARDWARE_MANAGER_VERSION }))],
    ['clean.execute_clean_step', stepCommand(ctx, 'clean')],
    ['deploy.get_deploy_steps', sync((p) => (cacheNode(ctx, p), { deploy_steps: { [HARDWARE_MANAGER]: DEPLOY_STEPS }, hardware_manager_version: HARDWARE_MANAGER_VERSION }))],
    ['deploy.execute_deploy_step', stepCommand(ctx, 'deploy')],
    ['standby.prepare_image', { async: true, validate: (p) => validateImageInfo(p['image_info']), run: (p) => writeImage(ctx.disk, ctx.write, p['image_info'], p['configdrive'], ctx.download, ctx.node.current) }],
    ['standby.get_partition_uuids', sync(() => ctx.disk.partitionUuids())],
    ['standby.sync', sync(() => null)],
    ['standby.power_off', { async: true, run: async () => void setImmediate(() => ctx.powerOff()) }],
    ['standby.run_image', { async: true, run: async () => void setImmediate(() => ctx.reboot()) }],
    ['image.install_bootloader', {
      async: true,
      run: async (p) => {
        const s = (k: string): string | null => (typeof p[k] === 'string' ? (p[k] as string) : null);
        await later(ctx.workMs);
        ctx.disk.installBootloader({ rootUuid: s('root_uuid'), efiSystemPartUuid: s('efi_system_part_uuid'), prepBootPartUuid: s('prep_boot_part_uuid'), targetBootMode: s('target_boot_mode') });
        ctx.journal.push(`bootloader installed (${s('target_boot_mode') ?? 'bios'})`);
        return null;
      },
    }],
    ['log.collect_system_logs', sync(() => ({ system_logs: systemLogs(ctx.journal) }))],
  ]);
}
