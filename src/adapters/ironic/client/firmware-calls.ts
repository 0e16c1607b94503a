import { parse } from './answers.ts';
import type { Call, Send } from './call.ts';
import { seg } from './call.ts';
import type { Feature } from './features.ts';
import type { BiosSetting, FirmwareComponent } from './firmware.ts';
import { BiosSettingList, FirmwareComponentList } from './firmware.ts';

// The firmware reads of one node: BIOS settings (with their registry) and firmware components.

export interface FirmwareCalls {
  /** The node's cached BIOS settings; with `registry`, each with its registry fields (API 1.74). */
  getBiosSettings(ref: string, q?: { registry?: boolean }): Promise<BiosSetting[]>;
  /** The node's firmware components and their versions (API 1.86). */
  getFirmwareComponents(ref: string): Promise<FirmwareComponent[]>;
}

export interface FirmwareCallDeps {
  readonly request: Send;
  readonly gate: (c: Call, needs: readonly (readonly [string, Feature])[]) => Promise<void>;
}

export function firmwareCalls({ request, gate }: FirmwareCallDeps): FirmwareCalls {
  return {
    async getBiosSettings(ref, q = {}) {
      // Ironic spells the flag in Python's way in its own docs; it parses either case.
      const path = `/v1/nodes/${seg(ref)}/bios${q.registry ? '?detail=True' : ''}`;
      const c: Call = { method: 'GET', path, route: 'GET /v1/nodes/{node}/bios' };
      if (q.registry) await gate(c, [['the BIOS registry (GET /v1/nodes/{node}/bios?detail=True)', 'bios-registry']]);
      return parse(c, BiosSettingList, await request(c)).bios;
    },

    async getFirmwareComponents(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}/firmware`, route: 'GET /v1/nodes/{node}/firmware' };
      await gate(c, [['firmware components (GET /v1/nodes/{node}/firmware)', 'firmware-interface']]);
      return parse(c, FirmwareComponentList, await request(c)).firmware;
    },
  };
}
