// A simulated Canonical MAAS (2.0 REST API over real HTTP, OAuth 1.0 checked), answering the
// calls CAPMAAS makes the way MAAS does: reference/capmaas.md §3–§4. It shares no code with the
// MAAS client in src/adapters/maas, so a bug on one side cannot hide the same bug on the other.
export { startMaasSim } from './server.ts';
export { DEFAULT_FLEET } from './fleet/default-fleet.ts';
export { parseSeedMachines, SeedError, SeedMachineSchema, SeedMachinesSchema, validateSeedMachines } from './fleet/seed.ts';
export { NodeStatus, statusName } from './fleet/status.ts';
export { SELF_POWER_OFF_MS } from './fleet/fleet.ts';
export type { SeedMachine } from './fleet/seed.ts';
export type { SeedBootResource } from './fleet/boot-images.ts';
export type { MaasSim, MaasSimOptions, SimCounts } from './options.ts';
export type { MaasFaults } from './fleet/faults.ts';
export type { PowerActionCounts, UnreadablePower } from './fleet/bmc.ts';
export type { SimMachine, PowerState } from './fleet/machine.ts';
export type { SimDnsResource } from './places/dns.ts';
export type { SimFile } from './files/file-store.ts';
export type { SimClock } from './clock.ts';
export type { NodeStatusCode } from './fleet/status.ts';
