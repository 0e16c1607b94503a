import { randomBytes, randomUUID } from 'node:crypto';
import { newBios } from './bios.ts';
import { SimFaultsSchema } from './faults.ts';
import { DEFAULT_FIRMWARE } from './firmware.ts';
import { modelInfo } from './models.ts';
import { DEFAULT_DRIVES } from './storage.ts';
import { SimSystem } from './system.ts';
import type { SimSystemSpecSchema } from '../options.ts';
import type { z } from 'zod';

type Spec = z.output<typeof SimSystemSpecSchema>;

function randomMac(): string {
  // 52:54:00 is the prefix QEMU uses for virtual NICs: locally administered, never a vendor's.
  return ['52', '54', '00', ...[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0'))].join(':');
}

/** 24 random characters from a 64-symbol alphabet: 144 bits, nothing to quote in a shell. */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}

export function buildSystem(spec: Spec, index: number, base: string, defaults: { username: string; password?: string }): SimSystem {
  const id = spec.id ?? `node-${index}`;
  const path = `/redfish/v1/Systems/${id}`;
  const tls = base.startsWith('https://');
  const host = base.replace(/^https?:\/\//, '');
  const uuid = spec.uuid ?? randomUUID();
  const macs = spec.macs ?? [randomMac(), randomMac()];
  const serial = `SIM${uuid.slice(0, 8).toUpperCase()}`;
  return new SimSystem(
    {
      id,
      // Metal3: redfish:// and redfish-virtualmedia:// mean https; +http is plain HTTP.
      address: tls ? `redfish://${host}${path}` : `redfish+http://${host}${path}`,
      virtualMediaAddress: tls ? `redfish-virtualmedia://${host}${path}` : `redfish-virtualmedia+http://${host}${path}`,
      redfishAddress: base,
      systemPath: path,
      username: spec.username ?? defaults.username,
      password: spec.password ?? defaults.password ?? randomPassword(),
      macs,
      uuid,
    },
    { uuid, model: spec.model, bmc: spec.bmc, macs, cpuCount: spec.cpuCount, coresPerCpu: spec.coresPerCpu, memoryGiB: spec.memoryGiB, serial },
    {
      on: spec.powerOn,
      boot: { target: 'None', enabled: 'Disabled', mode: spec.bootMode, httpBootUri: null },
      defaultBootTarget: spec.defaultBootTarget,
      bios: newBios(modelInfo(spec.model).registry, serial),
      secureBoot: { enabled: false, mode: 'UserMode', currentBoot: 'Disabled' },
      virtualMedia: { Cd: { image: null, inserted: false, writeProtected: true }, Floppy: { image: null, inserted: false, writeProtected: false } },
      virtualMediaVerifyCertificate: { Cd: false, Floppy: false },
      drives: DEFAULT_DRIVES.map((d) => ({ ...d })),
      volumes: [],
      firmware: { ...DEFAULT_FIRMWARE },
      indicatorLed: 'Off',
      boots: 0,
    },
    SimFaultsSchema.parse(spec.faults ?? {}),
  );
}
