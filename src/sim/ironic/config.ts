import type { StartIronicOptions } from './options.ts';
import { ironicFeatures } from './features.ts';
import type { IronicRelease } from './version.ts';

// ironic.conf for a private Ironic: noauth, SQLite, API and conductor in one process
// (reference/ironic-standalone.md), every path inside its own folder. A pure function of the
// release it is for: what metalfleet asks a newer Ironic for must be enabled there, and what 21.4
// does not know must never be named (it refuses to start on an unknown interface).
export function ironicConfig(dir: string, port: number, o: StartIronicOptions, release: IronicRelease): string {
  const f = ironicFeatures(release);
  const httpRoot = o.bootServer?.root ?? `${dir}/httpboot`;
  const delays = Object.entries(o.fakeDelays ?? {}).map(([k, v]) => `${k}_delay = ${Array.isArray(v) ? v.join(',') : String(v)}`);
  return `[DEFAULT]
auth_strategy = noauth
host = localhost
rpc_transport = none
state_path = ${dir}
tempdir = ${dir}/tmp
# fake-hardware runs without a BMC; redfish is the real driver, driven against the virtual
# datacenter's simulated BMCs (src/sim/redfish) and agents (src/sim/agent).
enabled_hardware_types = fake-hardware,redfish
enabled_boot_interfaces = fake,ipxe,pxe,redfish-virtual-media
# fake is fake-hardware's default. direct, ramdisk and custom-agent are enabled so that nodes can be
# registered the way BMO registers them, and so that a manual clean with an agent step
# (deploy.erase_devices_metadata on a direct node) waits in "clean wait", where abort works.
# Deploying with them needs an agent: the virtual datacenter's, or none on fake-hardware (ramdisk
# even fails validation with the fake boot interface), so fake nodes that are to reach active keep fake.
enabled_deploy_interfaces = fake,direct,ramdisk,custom-agent
enabled_inspect_interfaces = fake,redfish,${f.agentInspect ? 'agent,' : ''}no-inspect
${f.redfishFirmware ? '# metalfleet sends firmware_interface=redfish from API 1.86; the default list is no-firmware.\nenabled_firmware_interfaces = fake,redfish,no-firmware\n' : ''}enabled_management_interfaces = fake,redfish
enabled_power_interfaces = fake,redfish
enabled_vendor_interfaces = fake,redfish,no-vendor
enabled_bios_interfaces = fake,redfish,no-bios
enabled_console_interfaces = fake,no-console
enabled_raid_interfaces = fake,redfish,agent,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_network_interfaces = noop
default_network_interface = noop
use_stderr = true
graceful_shutdown_timeout = 5
# Images go to the agent as their URLs, never converted or cached by Ironic first.
force_raw_images = false
[api]
host_ip = 127.0.0.1
port = ${port}
[database]
connection = sqlite:///${dir}/ironic.db
[dhcp]
dhcp_provider = none
[conductor]
automated_clean = false
[deploy]
# Metal3's cleaning: the metadata erase runs in automated cleaning, the full erase does not.
erase_devices_priority = 0
erase_devices_metadata_priority = 10
http_root = ${httpRoot}
${o.bootServer ? `http_url = ${o.bootServer.url}` : ''}
[pxe]
tftp_root = ${dir}/tftpboot
tftp_master_path = ${dir}/tftpboot/master_images
images_path = ${dir}/images
instance_master_path = ${dir}/master_images
[service_catalog]
# Agent-based interfaces (direct, custom-agent) need Ironic's own URL; without a catalog
# ("Couldn't get the URL of the Ironic API service") cleaning and deploying fail at once.
endpoint_override = http://127.0.0.1:${port}
[agent]
# The agent is polled for install_bootloader every 6 s by default; 1 s keeps deploys short.
command_wait_interval = 1
# After the agent powers a node off, Ironic reads the power state until it says off (6 x 5 s by
# default); a simulated BMC answers at once, fake power never does.
post_deploy_get_power_state_retries = 2
post_deploy_get_power_state_retry_interval = 1
# The default, /var/log/ironic/deploy, is not writable by a private Ironic.
deploy_logs_local_path = ${dir}/deploy-logs
${f.requireTlsByDefault ? '# The simulated agents call back over plain http, refused on every heartbeat by default since 26.0.\nrequire_tls = false\n' : ''}[redfish]
# Virtual media images are published under http_root and served from http_url, not Swift.
use_swift = false
[oslo_concurrency]
lock_path = ${dir}/locks
[fake]
${delays.join('\n')}
${o.extraConfig ?? ''}
`;
}
