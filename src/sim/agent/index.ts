// A simulated ironic-python-agent: the deploy ramdisk half of the virtual datacenter. Whoever
// notices a server booted into the ramdisk (its BMC simulator) starts an agent for it with the
// server's MACs and disk; a real Ironic then drives it through lookup, heartbeats and commands
// (agent_client.py), and the disk records what was written and erased.
export { startAgent } from './agent.ts';
export { SimDisk } from './disk.ts';
export { startImageServer } from './image-server.ts';
export { parseConfigDriveIso } from './config-drive.ts';
export { readIso } from './iso9660.ts';
export { CLEAN_STEPS, DEPLOY_STEPS } from './steps.ts';
export { AgentError } from './errors.ts';
export { agentInventory } from './inventory.ts';
export { describeRefusal } from './backoff.ts';
export type { Refusal } from './backoff.ts';
export type { InventoryHardware } from './inventory.ts';
export type { StartAgentOptions, SimAgent, AgentState } from './agent.ts';
export type { SimDiskOptions, WrittenImage, Partition, Bootloader, EraseKind, EraseRecord, RaidVolume, ImageType } from './disk.ts';
export type { ConfigDrive } from './config-drive.ts';
export type { ImageServer, ImageServerOptions, ServedRequest } from './image-server.ts';
export type { CommandResult, CommandStatus } from './command-log.ts';
export type { AgentStep } from './steps.ts';
export type { BlockDevice } from './root-device.ts';
export type { AgentErrorBody } from './errors.ts';
