import type { MaasFailureReason, StaticLink } from '../../../machines/maas-machine/index.ts';
import type { MaasClient, MaasInterface, MaasMachine } from '../client/index.ts';
import { MaasError } from '../client/index.ts';

// spec.staticAddress on a MAAS machine, as MAAS takes it: the interface's AUTO link (the address MAAS
// would claim at deploy) is unlinked and a STATIC link to the subnet made with the address
// (op=unlink_subnet, op=link_subnet mode=STATIC). Idempotent: an interface that already has the
// STATIC link asked for is left as it is, so a retry or a new owner after a crash changes nothing.
// MAAS keeps STATIC links when the machine is released (Node.release_interface_config frees AUTO
// addresses only), so a machine allocated again may carry another's STATIC link: it is replaced.

/** A link_subnet refusal the machine reports as a StaticAddress reason. */
export class StaticLinkRefused extends Error {
  constructor(readonly reason: MaasFailureReason, message: string) {
    super(message);
    this.name = 'StaticLinkRefused';
  }
}

function sameSubnet(link: MaasInterface['links'][number], subnet: string): boolean {
  const s = link.subnet;
  return s !== undefined && (String(s.id) === subnet || s.cidr === subnet || s.name === subnet);
}

function pickInterface(nics: readonly MaasInterface[], machine: MaasMachine, name: string | undefined): MaasInterface {
  if (name !== undefined) {
    const nic = nics.find((n) => n.name === name);
    if (!nic) throw new StaticLinkRefused('interfaceNotFound', `MAAS machine ${machine.system_id} has no interface ${name}; it has ${nics.map((n) => n.name).join(', ') || 'none'}`);
    return nic;
  }
  const boot = (machine as { boot_interface?: { id?: number } | null }).boot_interface?.id;
  const nic = nics.find((n) => n.id === boot) ?? nics[0];
  if (!nic) throw new StaticLinkRefused('interfaceNotFound', `MAAS machine ${machine.system_id} has no interfaces`);
  return nic;
}

/** Links spec.staticAddress on the machine; answers the machine as MAAS has it after. */
export async function linkStatic(client: MaasClient, systemId: string, want: StaticLink): Promise<MaasMachine> {
  const machine = await client.getMachine(systemId);
  if (!machine) throw new MaasError(`MAAS machine ${systemId} not found`, { code: 'not-found', status: 404, retryable: false, maasMessage: '', call: `GET /machines/${systemId}/`, route: 'GET /machines/{id}/', attempts: 1 });
  const nic = pickInterface(await client.listInterfaces(systemId), machine, want.interface);
  const statics = nic.links.filter((l) => l.mode === 'static');
  const done = statics.some((l) => sameSubnet(l, want.subnet) && (want.address === undefined || l.ip_address === want.address));
  if (done) return machine;
  // Linked first, unlinked after: a refused address leaves the interface as it was (its AUTO link
  // still there), not without any address.
  try {
    await client.linkSubnet(systemId, nic.id, {
      mode: 'static', subnet: want.subnet,
      ...(want.address !== undefined ? { ipAddress: want.address } : {}),
      ...(want.defaultGateway !== undefined ? { defaultGateway: want.defaultGateway } : {}),
    });
  } catch (err) {
    throw refusal(err, nic.name, want);
  }
  // The AUTO link MAAS would fill at deploy, and any STATIC link left from an earlier allocation.
  for (const link of nic.links.filter((l) => l.mode === 'auto' || l.mode === 'static')) await client.unlinkSubnet(systemId, nic.id, link.id);
  return (await client.getMachine(systemId)) ?? machine;
}

// MAAS's answers to link_subnet, as the reason the machine reports: 404 "IP address is already in
// use." (StaticIPAddressUnavailable), 400 form errors on ip_address or subnet, 403 for a non-admin.
function refusal(err: unknown, nic: string, want: StaticLink): unknown {
  if (!(err instanceof MaasError)) return err;
  const where = `${want.address ?? 'an address'} on ${nic} (subnet ${want.subnet})`;
  const said = err.formErrors ? Object.entries(err.formErrors).map(([k, v]) => `${k}: ${v.join(' ')}`).join('; ') : err.maasMessage;
  if (err.code === 'not-found' && /already in use/i.test(err.maasMessage)) return new StaticLinkRefused('addressInUse', `MAAS refused ${where}: ${said}`);
  if (err.code === 'forbidden') return new StaticLinkRefused('forbidden', `MAAS refused ${where}: the API key may not change a machine's interfaces`);
  if (err.formErrors?.ip_address) return new StaticLinkRefused('addressInvalid', `MAAS refused ${where}: ${said}`);
  if (err.formErrors?.subnet) return new StaticLinkRefused('subnetNotFound', `MAAS refused ${where}: ${said}`);
  return err;
}
