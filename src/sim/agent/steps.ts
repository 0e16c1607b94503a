// The in-band steps IPA's GenericHardwareManager offers (get_clean_steps / get_deploy_steps),
// with IPA's own priorities. Ironic overrides erase_devices / erase_devices_metadata priorities
// from [deploy]erase_devices_priority / erase_devices_metadata_priority; a priority of 0 runs
// only when asked for (manual clean, deploy templates).
export interface AgentStep {
  readonly step: string;
  readonly priority: number;
  readonly interface: 'deploy' | 'raid';
  readonly reboot_requested: boolean;
  readonly abortable?: boolean;
  readonly argsinfo?: Record<string, unknown>;
}

export const HARDWARE_MANAGER = 'GenericHardwareManager';
/** What get_*_steps report as hardware_manager_version; Ironic sends it back as clean_version. */
export const HARDWARE_MANAGER_VERSION: Readonly<Record<string, string>> = { generic_hardware_manager: '1.2' };

const clean = (step: string, priority: number, iface: AgentStep['interface'] = 'deploy'): AgentStep =>
  ({ step, priority, interface: iface, reboot_requested: false, abortable: true });

export const CLEAN_STEPS: readonly AgentStep[] = [
  clean('erase_devices', 10),
  clean('erase_devices_metadata', 99),
  clean('erase_devices_express', 0),
  clean('erase_pstore', 0),
  clean('delete_configuration', 0, 'raid'),
  clean('create_configuration', 0, 'raid'),
  clean('burnin_cpu', 0),
  clean('burnin_disk', 0),
  clean('burnin_memory', 0),
  clean('burnin_network', 0),
];

const RAID_ARGSINFO = {
  raid_config: { description: 'The RAID configuration to apply.', required: true },
  delete_existing: { description: "Setting this to 'True' indicates to delete existing RAID configuration prior to creating the new configuration. Default value is 'True'.", required: false },
};

export const DEPLOY_STEPS: readonly AgentStep[] = [
  { step: 'erase_devices_metadata', priority: 0, interface: 'deploy', reboot_requested: false },
  { step: 'apply_configuration', priority: 0, interface: 'raid', reboot_requested: false, argsinfo: RAID_ARGSINFO },
  // Proxied by Ironic's out-of-band write_image step (priority 80), which passes image_info.
  { step: 'write_image', priority: 0, interface: 'deploy', reboot_requested: false },
  { step: 'inject_files', priority: 0, interface: 'deploy', reboot_requested: false, argsinfo: { files: { description: 'Files to inject', required: false } } },
];
