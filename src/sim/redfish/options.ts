import { z } from 'zod';
import { BMC_PROFILES } from './model/bmc.ts';
import { BOOT_MODES, BOOT_TARGETS } from './model/boot.ts';
import { SimFaultsSchema } from './model/faults.ts';
import { SIM_MODELS } from './model/models.ts';

const Mac = z.string().regex(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/, 'a lower-case MAC such as 52:54:00:12:34:56');

export const SimSystemSpecSchema = z.object({
  /** The last segment of /redfish/v1/Systems/<id> (default node-<n>). */
  id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, dash or underscore').optional(),
  username: z.string().min(1).max(64).optional(),
  /** Default: a random password for this system alone. */
  password: z.string().min(1).max(256).optional(),
  macs: z.array(Mac).min(1).max(8).optional(),
  uuid: z.uuid().optional(),
  /** The server model: its Manufacturer/Model and BIOS attribute registry (servers of one model share it). */
  model: z.enum(SIM_MODELS).default('SIM-1'),
  /** The BMC firmware: its Base registry version and InsertMedia quirks (model/bmc.ts). */
  bmc: z.enum(BMC_PROFILES).default('standard'),
  powerOn: z.boolean().default(false),
  /** What the system boots when no override is enabled (its own boot order). */
  defaultBootTarget: z.enum(BOOT_TARGETS).default('Hdd'),
  bootMode: z.enum(BOOT_MODES).default('UEFI'),
  cpuCount: z.number().int().min(1).max(8).default(2),
  coresPerCpu: z.number().int().min(1).max(256).default(16),
  memoryGiB: z.number().int().min(1).max(65_536).default(64),
  faults: SimFaultsSchema.partial().optional(),
});
export type SimSystemSpec = z.input<typeof SimSystemSpecSchema>;

export const RedfishSimOptionsSchema = z.object({
  /** Default: a free port on 127.0.0.1. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** A count of default systems, or each system's spec. */
  systems: z.union([z.number().int().min(1).max(1_000), z.array(SimSystemSpecSchema).min(1).max(1_000)]).default(1),
  /** The user name of systems whose spec names none. */
  username: z.string().min(1).max(64).default('admin'),
  /** The password of systems whose spec gives none; default one random password per system. */
  password: z.string().min(1).max(256).optional(),
  /** How long a SimpleUpdate task runs before it completes. */
  updateMs: z.number().int().min(0).max(600_000).default(50),
  /** Serve HTTPS with a self-signed certificate made at start (Metal3's redfish:// means https). */
  tls: z.boolean().default(false),
  /** The clock (epoch ms) idle sessions expire by; default Date.now. */
  now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function returning epoch milliseconds').default(() => Date.now),
});
export type RedfishSimOptions = z.input<typeof RedfishSimOptionsSchema>;
