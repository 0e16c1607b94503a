// One virtual datacenter and one real Ironic for a test file: the datacenter first (it serves
// Ironic's http_root), Ironic on a port chosen up front so the deploy ISO can carry its URL.
import { freePort, ironicInstalled, startIronic } from '../../support/ironic.ts';
import type { IronicServer } from '../../support/ironic.ts';
import { startVirtualDatacenter } from '../../../src/sim/datacenter/index.ts';
import type { DatacenterOptions, VirtualDatacenter } from '../../../src/sim/datacenter/index.ts';
import { IronicApi } from './ironic-api.ts';

// Under CI a missing Ironic is a failure that names it; elsewhere the tests are skipped.
export const HAVE_IRONIC = ironicInstalled() || process.env.CI === 'true';

export interface DatacenterIronic {
  readonly dc: VirtualDatacenter;
  readonly ironic: IronicServer;
  readonly api: IronicApi;
  stop(): Promise<void>;
}

/** `ironicConfig`: more ironic.conf lines for this file's Ironic; `sushyRegistries`: see StartIronicOptions. */
export async function startDatacenterIronic(o: Omit<DatacenterOptions, 'ironicUrl'> & { ironicConfig?: string; sushyRegistries?: boolean }): Promise<DatacenterIronic> {
  const { ironicConfig = '', sushyRegistries = false, ...dcOptions } = o;
  const port = await freePort();
  // Short heartbeats keep each agent step well under a second.
  const dc = await startVirtualDatacenter({ heartbeatIntervalMs: 500, minHeartbeatGapMs: 200, ...dcOptions, ironicUrl: `http://127.0.0.1:${port}` });
  let ironic: IronicServer;
  try {
    ironic = await startIronic({ port, bootServer: dc.bootServer, extraConfig: ironicConfig, sushyRegistries });
  } catch (err) {
    await dc.stop();
    throw err;
  }
  return {
    dc,
    ironic,
    api: new IronicApi(ironic.url, () => ironic.logTail(20)),
    async stop() {
      await ironic.stop();
      await dc.stop();
    },
  };
}
