import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { HARDWARE_INFO_KEYS } from './hardware.ts';
import { PowerParametersSchema } from './power-parameters.ts';
import { SEED_STATUSES } from './status.ts';

// A machine the simulator starts with. Names follow MAAS's own rules so a seed cannot hold a
// machine MAAS would refuse: hostnames are DNS labels, tags/zones/pools MAAS model names.

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const DOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const MODEL_NAME = /^\w[\w-]*$/;

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;
const USERNAME = /^[\w.@+-]+$/;

const DiskSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9]*$/, 'must be a device name such as sda or nvme0n1').optional(),
  sizeGb: z.number().positive('must be more than 0'),
  model: z.string().min(1).optional(),
  serial: z.string().min(1).optional(),
  tags: z.array(z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"')).optional(),
});

const NicSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9._-]*$/i, 'must be an interface name such as eth0').optional(),
  mac: z.string().regex(MAC, 'must be a MAC address such as 52:54:00:12:34:56').optional(),
  linkSpeedMbps: z.number().int('must be a whole number').min(0, 'must be at least 0').optional(),
  tags: z.array(z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"')).optional(),
  // The IPv4 subnet the NIC is cabled to: deploying gives it an address there too (absent: only
  // the first NIC gets one, in its zone's subnet).
  subnet: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'must be an IPv4 CIDR such as 10.20.0.0/24').optional(),
});

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const CIDR = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/;

// An interface link as op=link_subnet/op=unlink_subnet left it (machine-links.ts), as `--save`
// writes it: MAAS keeps a machine's links and its STATIC addresses across a region restart and a
// release. `ip` is a STATIC link's address, or a Deployed machine's AUTO one.
const LinkSchema = z.strictObject({
  nic: z.string().min(1, 'must name one of the machine\'s NICs'),
  mode: z.enum(['auto', 'dhcp', 'static', 'link_up'], { error: 'must be one of auto, dhcp, static, link_up' }),
  subnet: z.string().regex(CIDR, 'must be an IPv4 CIDR such as 10.10.1.0/24').optional(),
  ip: z.string().regex(IPV4, 'must be an IPv4 address such as 10.10.1.10').optional(),
});

export type SeedLink = z.infer<typeof LinkSchema>;

export const SeedMachineSchema = z.strictObject({
  /** Absent: derived from the hostname (stable across runs). */
  systemId: z.string().regex(/^[a-z0-9]{6}$/, 'must be 6 lowercase letters or digits, as MAAS makes them').optional(),
  hostname: z.string().regex(DNS_LABEL, 'must be a DNS label: letters, digits and "-", at most 63 characters'),
  zone: z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"').optional(),
  pool: z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"').optional(),
  tags: z.array(z.string().regex(MODEL_NAME, 'must be letters, digits, "_" or "-"')).optional(),
  cpuCount: z.number().int('must be a whole number').min(1, 'must be at least 1'),
  memoryMb: z.number().int('must be a whole number').min(1, 'must be at least 1'),
  domain: z.string().regex(DOMAIN, 'must be a DNS domain name').optional(),
  powerType: z.string().min(1, 'must not be empty').optional(),
  // Over the power type's defaults (power-parameters.ts); what op=power_parameters answers.
  powerParameters: PowerParametersSchema.optional(),
  // Absent: on when Deployed, else off.
  powerState: z.enum(['on', 'off'], { error: 'must be on or off' }).optional(),
  status: z.enum(SEED_STATUSES, { error: `must be one of ${SEED_STATUSES.join(', ')}` }).optional(),
  // Hardware that commissioning reports; absent: amd64/generic, 2400 MHz, one 480 GB disk, one NIC.
  architecture: z.string().regex(/^[a-z0-9]+\/[a-z0-9-]+$/, 'must be arch/subarch, e.g. amd64/generic').optional(),
  cpuSpeedMhz: z.number().int('must be a whole number').min(0, 'must be at least 0').optional(),
  disks: z.array(DiskSchema).min(1, 'must list at least one disk').optional(),
  nics: z.array(NicSchema).min(1, 'must list at least one NIC').optional(),
  /** hardware_info values (system_vendor, cpu_model, ...). */
  hardware: z.partialRecord(z.enum(HARDWARE_INFO_KEYS), z.string()).optional(),
  // State beyond the status: who owns it (Allocated/Deployed), what runs on it.
  owner: z.string().regex(USERNAME, 'must be a MAAS user name').optional(),
  agentName: z.string().optional(),
  osystem: z.string().optional(),
  distroSeries: z.string().optional(),
  description: z.string().optional(),
  locked: z.boolean().optional(),
  ownerData: z.record(z.string(), z.string()).optional(),
  // A Deployed machine's addresses, as `--save` writes them: MAAS keeps a deployed machine's
  // StaticIPAddress rows across a region restart, so it comes back on the same ones (absent:
  // claimed afresh in its zone). Ignored for any other status.
  ipAddresses: z.array(z.string().regex(IPV4, 'must be an IPv4 address such as 10.10.1.10')).optional(),
  // The interface links once link_subnet/unlink_subnet changed them (absent: commissioning's).
  links: z.array(LinkSchema).optional(),
  // Machine settings that outlive deployments (PUT machines/{id}/), and a Deployed machine's kernel.
  minHweKernel: z.string().min(1, 'must not be empty').optional(),
  swapSize: z.number().int('must be a whole number of bytes').min(0, 'must be at least 0').optional(),
  hweKernel: z.string().min(1, 'must not be empty').optional(),
});

export type SeedMachine = z.infer<typeof SeedMachineSchema>;

export const SeedMachinesSchema = z.array(SeedMachineSchema, { error: 'expected a list of machines' }).superRefine((machines, ctx) => {
  const seen = new Map<string, number>();
  machines.forEach((m, i) => {
    const key = m.hostname.toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'hostname'], message: `"${m.hostname}" is already the hostname of machine [${first}]` });
  });
  const ids = new Map<string, number>();
  machines.forEach((m, i) => {
    if (m.systemId === undefined) return;
    const first = ids.get(m.systemId);
    if (first === undefined) ids.set(m.systemId, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'systemId'], message: `"${m.systemId}" is already the systemId of machine [${first}]` });
  });
  machines.forEach((m, i) => {
    const names = (m.nics && m.nics.length > 0 ? m.nics : [{ name: undefined }]).map((n, j) => n.name ?? `eth${j}`);
    (m.links ?? []).forEach((link, j) => {
      if (!names.includes(link.nic)) ctx.addIssue({ code: 'custom', path: [i, 'links', j, 'nic'], message: `"${link.nic}" is not a NIC of this machine (it has ${names.join(', ')})` });
      if (link.ip !== undefined && link.subnet === undefined) ctx.addIssue({ code: 'custom', path: [i, 'links', j, 'subnet'], message: 'a link with an ip needs its subnet' });
    });
  });
  const macs = new Map<string, string>();
  machines.forEach((m, i) => {
    (m.nics ?? []).forEach((nic, j) => {
      if (nic.mac === undefined) return;
      const mac = nic.mac.toLowerCase();
      const first = macs.get(mac);
      if (first === undefined) macs.set(mac, `[${i}].nics[${j}]`);
      else ctx.addIssue({ code: 'custom', path: [i, 'nics', j, 'mac'], message: `${mac} is already the MAC of machine ${first}` });
    });
  });
});

/** A seed that cannot be used; the message names the source and the field. */
export class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedError';
  }
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

/** Validates machines given in code or read from a file; throws SeedError naming `source` and the field. */
export function validateSeedMachines(input: unknown, source: string): SeedMachine[] {
  const parsed = SeedMachinesSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.slice(0, 5).map((issue) => {
    const where = formatPath(issue.path);
    return `${source}: ${where === '' ? '' : `${where}: `}${issue.message}`;
  });
  const more = parsed.error.issues.length - lines.length;
  throw new SeedError(lines.join('\n') + (more > 0 ? `\n${source}: and ${more} more` : ''));
}

/** A seed file's text (YAML or JSON: a list of machines) → machines, or a SeedError. */
export function parseSeedMachines(text: string, source: string): SeedMachine[] {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new SeedError(`${source}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0] ?? ''}`);
  }
  return validateSeedMachines(data, source);
}
