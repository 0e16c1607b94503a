import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImageServer } from '../agent/index.ts';
import { startImageServer } from '../agent/index.ts';
import type { RedfishSim, SimSystemInfo } from '../redfish/index.ts';
import { startRedfishSim } from '../redfish/index.ts';
import { demoImage, DEPLOY_FILES } from './boot-files.ts';
import type { DatacenterOptions } from './options.ts';
import { SimServer } from './server.ts';

export interface VirtualDatacenter {
  readonly redfish: RedfishSim;
  /** Each server's BMC: address (redfish+http://…, redfish://… with tls), virtual-media address, credentials, MACs. */
  readonly systems: readonly SimSystemInfo[];
  /** OS images, the deploy ramdisk and Ironic's boot files, over HTTP. */
  readonly images: ImageServer;
  /** Ironic's [deploy] http_root and http_url: pass to startIronic({ bootServer }). */
  readonly bootServer: { readonly url: string; readonly root: string };
  /** driver_info deploy_kernel / deploy_ramdisk / deploy_iso (metalfleet's DEPLOY_*_URL). */
  readonly deployImages: { readonly kernelUrl: string; readonly ramdiskUrl: string; readonly isoUrl: string };
  server(id: string): SimServer;
  readonly servers: readonly SimServer[];
  /** Tells the datacenter where Ironic is, when it started after the datacenter. */
  useIronic(url: string): void;
  stop(): Promise<void>;
}

// The virtual datacenter: servers with Redfish BMCs (src/sim/redfish), disks and NICs, that boot
// the deploy ramdisk (an agent, src/sim/agent) when Ironic prepares a network or virtual media
// boot. A real Ironic drives it with its redfish hardware type, as it drives a rack.
export async function startVirtualDatacenter(o: DatacenterOptions): Promise<VirtualDatacenter> {
  const root = await mkdtemp(join(tmpdir(), 'metalfleet-datacenter-'));
  const images = await startImageServer({ images: { ...DEPLOY_FILES, 'os.img': demoImage(), ...o.images }, dir: root });
  let redfish: RedfishSim;
  try {
    redfish = await startRedfishSim({ systems: typeof o.systems === 'number' ? o.systems : [...o.systems], tls: o.tls ?? false, ...(o.redfishPort !== undefined ? { port: o.redfishPort } : {}) });
  } catch (err) {
    await images.stop();
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  let ironicUrl = o.ironicUrl ?? '';
  const deployIsoUrl = images.urlOf('ipa.iso');
  const fetchBytes = async (url: string): Promise<Buffer | null> => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      return res.ok ? Buffer.from(await res.arrayBuffer()) : null;
    } catch {
      return null;
    }
  };
  const servers = redfish.systems.map((info) => new SimServer(redfish.system(info.id), {
    firmware: { bootUrl: images.url, deployIsoUrls: [deployIsoUrl], fetch: fetchBytes },
    ironicUrl: () => ironicUrl,
    ...(o.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: o.heartbeatIntervalMs } : {}),
    ...(o.minHeartbeatGapMs !== undefined ? { minHeartbeatGapMs: o.minHeartbeatGapMs } : {}),
    ...(o.onAgentRefused !== undefined ? { onAgentRefused: o.onAgentRefused } : {}),
  }));
  const byId = new Map(servers.map((s) => [s.id, s]));
  return {
    redfish,
    systems: redfish.systems,
    images,
    bootServer: { url: images.url, root },
    deployImages: { kernelUrl: images.urlOf('ipa.kernel'), ramdiskUrl: images.urlOf('ipa.initramfs'), isoUrl: deployIsoUrl },
    servers,
    server(id) {
      const s = byId.get(id);
      if (!s) throw new Error(`virtual datacenter: no server ${id} (have ${[...byId.keys()].join(', ')})`);
      return s;
    },
    useIronic(url) {
      ironicUrl = url;
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
      await redfish.stop();
      await images.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
