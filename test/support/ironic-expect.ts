// What a test may expect of the Ironic it runs against, where that differs between the Ironic of
// Debian 12 (21.4, API 1.82) and of Debian 13 (29.0, API 1.96). Each answer is decided here once,
// from the API version the client negotiated (its server's maximum where the question is what
// the server serves), and cites the Ironic source or release it follows, so a test names the
// behaviour rather than a version and runs the same scenario for real wherever it is served.
import type { IronicClient, Negotiated } from '../../src/adapters/ironic/client/index.ts';
import { createIronicClient, versionSupports } from '../../src/adapters/ironic/client/index.ts';

/** The newest API the API test server models (Ironic 29.0, versions.py MINOR_96_INSPECTION_RULES). */
export const NEWEST_MODELLED = 96;

export interface IronicExpectations {
  /** As negotiated, e.g. "1.82". */
  readonly version: string;
  /**
   * GET /v1/nodes/{node}/firmware answers, and metalfleet reads the components (API 1.86,
   * api/controllers/v1/firmware.py, Ironic 22.1). Below it the client refuses, naming 1.86.
   */
  readonly firmwareComponents: boolean;
  /** `firmware.update` may be a clean step (1.86, the firmware interface). */
  readonly firmwareUpdate: boolean;
  /** The `service` verb with service_steps (1.87, Ironic 23.0: conductor/servicing.py). */
  readonly servicing: boolean;
  /** `firmware.update` is a service step (redfish firmware.py @service_step, Ironic 26.1, the release serving 1.93). */
  readonly firmwareServiceStep: boolean;
  /**
   * fake-hardware's nodes get the `fake` firmware interface, whose firmware.update clean step
   * flashes nothing and succeeds (drivers/modules/fake.py FakeFirmware): where the private Ironic
   * enables it, from 23.0 (src/sim/ironic/config.ts), the release that serves 1.87 (22.1 stops at
   * 1.86 and runs no-firmware, which has no update step).
   */
  readonly fakeFirmwareInterface: boolean;
  /**
   * What fake-hardware's firmware components are: fake-hardware lists the `fake` firmware
   * interface first (drivers/fake_hardware.py supported_firmware_interfaces), so a node created
   * without one gets it where it is enabled (src/sim/ironic/config.ts enables it from 23.0), and
   * FakeFirmware.cache_firmware_components stores nothing (drivers/modules/fake.py): an empty list.
   */
  readonly fakeFirmwareComponents: readonly [] | undefined;
  /**
   * Whether fake-hardware's `fake` BIOS interface can be a service step: it cannot, up to 29.0 at
   * least — FakeBIOS.apply_configuration is a @clean_step only (drivers/modules/fake.py; only
   * FakeVendorB has @service_step), so the conductor fails the service ("Cannot service node",
   * conductor/servicing.py do_node_service). Servicing BIOS settings for real needs `redfish`.
   */
  readonly fakeBiosServiceStep: boolean;
  /**
   * Redfish inspection keeps the inventory it built (GET .../inventory answers, with memory,
   * cpu, disks, interfaces' MACs and system_vendor): from Ironic 22.1, "Add to Redfish hardware
   * inventory collection" (b3d7ba88d; drivers/modules/redfish/inspect.py inspect_hardware calls
   * inspect_utils.store_inspection_data). 21.4 keeps an inventory only from ironic-inspector, so
   * the route answers 404 after redfish inspection. The same change made the inspected
   * properties.memory_mb a number (it was a string).
   */
  readonly redfishInspectionStoresInventory: boolean;
}

export function expectationsOf(n: Negotiated): IronicExpectations {
  const v = n.version;
  return {
    version: v.text,
    firmwareComponents: versionSupports(v, 'firmware-interface'),
    firmwareUpdate: versionSupports(v, 'firmware-interface'),
    servicing: versionSupports(v, 'service'),
    firmwareServiceStep: versionSupports(v, 'firmware-service-step'),
    fakeFirmwareInterface: versionSupports(n.serverMax, 'service'),
    fakeFirmwareComponents: versionSupports(v, 'firmware-interface') ? [] : undefined,
    fakeBiosServiceStep: false,
    // 22.1 is the first release whose API goes past 1.83 (22.0's maximum): it serves 1.86.
    redfishInspectionStoresInventory: versionSupports(n.serverMax, 'inspection-callback'),
  };
}

/** properties.memory_mb as redfish inspection writes it (see redfishInspectionStoresInventory). */
export function inspectedMemoryMb(want: IronicExpectations, memoryGiB: number): string | number {
  return want.redfishInspectionStoresInventory ? memoryGiB * 1024 : String(memoryGiB * 1024);
}

/** The expectations for the Ironic at `url` (http://host:port, no /v1), as a client negotiates them. */
export async function ironicExpectationsAt(url: string): Promise<IronicExpectations> {
  const client = createIronicClient({ endpoint: url, timeoutMs: 10_000 });
  try {
    return await ironicExpectations(client);
  } finally {
    client.close();
  }
}

/** The expectations for what `client` negotiated (connecting first when it has not). */
export async function ironicExpectations(client: IronicClient): Promise<IronicExpectations> {
  return expectationsOf(await client.negotiated());
}

/**
 * The version to compare the real Ironic with the API test server at: what the real one serves,
 * capped at the newest the test server models.
 */
export function comparedVersion(serverMax: { minor: number }): string {
  return `1.${Math.min(serverMax.minor, NEWEST_MODELLED)}`;
}
