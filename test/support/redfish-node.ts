// An embedded node driving a real Ironic with its real `redfish` drivers against the virtual
// datacenter (src/sim/datacenter): BMCs, disks and a deploy ramdisk agent are simulated, Ironic
// and metalfleet are not. One datacenter and one Ironic per test file; hosts run in parallel.
import type { TestFn } from 'ava';
import type { LocalNode } from './local-node.ts';
import { startIronicNode } from './ironic-node.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { LocalStore } from '../../src/adapters/store/index.ts';
import type { MachineConfig } from '../../src/machines/bmh/index.ts';
import type { Substrate } from '../../src/node/index.ts';
import { startVirtualDatacenter } from '../../src/sim/datacenter/index.ts';
import type { SimServer, VirtualDatacenter } from '../../src/sim/datacenter/index.ts';
import { freePort, startIronic } from '../../src/sim/ironic/index.ts';
import type { IronicServer } from '../../src/sim/ironic/index.ts';
import type { SimSystemInfo, SimSystemSpec } from '../../src/sim/redfish/index.ts';

export interface RedfishTestNode {
  node: LocalNode;
  store: LocalStore;
  substrate: Substrate;
  client: IronicClient;
  ironic: IronicServer;
  dc: VirtualDatacenter;
  stop(): Promise<void>;
}

export interface RedfishNodeOptions {
  /** How many simulated servers, or each one's spec. */
  systems: number | readonly SimSystemSpec[];
  limit?: number;
  machine?: Partial<MachineConfig>;
  imageCheck?: boolean;
  /** BMCs over HTTPS with a self-signed certificate: addresses are redfish:// and redfish-virtualmedia://. */
  tls?: boolean;
}


export async function startRedfishNode(o: RedfishNodeOptions): Promise<RedfishTestNode> {
  // The deploy ISO carries Ironic's URL, so the port is chosen before either starts, and another
  // process (a parallel test file's server) can take it before Ironic binds it: startIronic cannot
  // move to another port then, so the datacenter is made again around a new one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(o, await freePort());
    } catch (err) {
      if (!(err instanceof Error && err.name === 'PortTaken') || attempt >= 3) throw err;
    }
  }
}

async function startOnce(o: RedfishNodeOptions, port: number): Promise<RedfishTestNode> {
  // Heartbeats every second (a real IPA waits far longer) keep a deploy to a few seconds.
  const dc = await startVirtualDatacenter({ systems: o.systems, ironicUrl: `http://127.0.0.1:${port}`, heartbeatIntervalMs: 1_000, minHeartbeatGapMs: 200, tls: o.tls ?? false });
  let ironic: IronicServer;
  try {
    // The simulated BMCs publish BIOS attribute registries; Debian's sushy reads them only with the overlay.
    ironic = await startIronic({ port, bootServer: dc.bootServer, sushyRegistries: true });
  } catch (err) {
    await dc.stop();
    throw err;
  }
  try {
    return await startNodeOn(o, ironic, dc);
  } catch (err) {
    await ironic.stop();
    await dc.stop();
    throw err;
  }
}

async function startNodeOn(o: RedfishNodeOptions, ironic: IronicServer, dc: VirtualDatacenter): Promise<RedfishTestNode> {
  const t = await startIronicNode({ url: ironic.url, name: 'redfish-test', realDrivers: { deploy: dc.deployImages }, imageCheck: o.imageCheck ?? true, ...(o.limit !== undefined ? { limit: o.limit } : {}), ...(o.machine ? { machine: o.machine } : {}) });
  return {
    ...t, ironic, dc,
    async stop() {
      await t.stop();
      t.client.close();
      await ironic.stop();
      await dc.stop();
    },
  };
}

/** The BMC Secret `bmc-<host>` with a system's credentials (or a given wrong password). */
export function redfishSecret(host: string, system: SimSystemInfo, o: { password?: string; namespace?: string } = {}): unknown {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bmc-${host}`, namespace: o.namespace ?? 'lab' }, stringData: { username: system.username, password: o.password ?? system.password } };
}

export interface RedfishHostOptions {
  /** Boot the deploy ramdisk by virtual media (redfish-virtualmedia+http://) instead of iPXE. */
  virtualMedia?: boolean;
  /** false: no image (the host stays available). */
  image?: boolean;
  externallyProvisioned?: boolean;
  online?: boolean;
  annotations?: Record<string, string>;
  /** The name of a Secret in `lab` with a `userData` key. */
  userData?: string;
  automatedCleaningMode?: 'metadata' | 'disabled';
  raid?: { hardwareRAIDVolumes?: unknown[] | null };
  /** spec.bmc.disableCertificateVerification (a self-signed BMC certificate). */
  disableCertificateVerification?: boolean;
}

/** A BareMetalHost for one simulated system: its BMC address, first MAC, own Secret, the datacenter's image. */
export function redfishHost(dc: VirtualDatacenter, system: SimSystemInfo, name: string, o: RedfishHostOptions = {}): unknown {
  const image = o.image === false ? undefined : { url: dc.images.urlOf('os.img'), checksum: dc.images.checksum('os.img', 'sha256'), checksumType: 'sha256' };
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'lab', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      online: o.online ?? true,
      bmc: { address: o.virtualMedia ? system.virtualMediaAddress : system.address, credentialsName: `bmc-${name}`, ...(o.disableCertificateVerification ? { disableCertificateVerification: true } : {}) },
      bootMACAddress: system.macs[0],
      ...(image ? { image } : {}),
      ...(o.externallyProvisioned ? { externallyProvisioned: true } : {}),
      ...(o.userData ? { userData: { name: o.userData, namespace: 'lab' } } : {}),
      ...(o.automatedCleaningMode ? { automatedCleaningMode: o.automatedCleaningMode } : {}),
      ...(o.raid ? { raid: o.raid } : {}),
    },
  };
}

/** Applies a host and its BMC Secret together; throws with the store's issues when refused. */
export async function applyRedfishHost(it: RedfishTestNode, system: SimSystemInfo, name: string, o: RedfishHostOptions = {}): Promise<SimServer> {
  const applied = await it.store.applyObjects([redfishSecret(name, system), redfishHost(it.dc, system, name, o)]);
  if (!applied.ok) throw new Error(`host ${name} refused: ${JSON.stringify(applied.issues)}`);
  return it.dc.server(system.id);
}

/**
 * One datacenter, one Ironic and an embedded node for a whole test file: the object is filled in
 * by the file's `before` hook (which applies `objects`, e.g. user data Secrets) and stopped after.
 */
export function useRedfishNode(test: TestFn, o: RedfishNodeOptions & { objects?: readonly unknown[] }): RedfishTestNode {
  const it = {} as { -readonly [K in keyof RedfishTestNode]: RedfishTestNode[K] };
  // One hook: ava runs a file's before hooks concurrently, so the objects go in once the node is up.
  test.before(async () => {
    Object.assign(it, await startRedfishNode(o));
    if (o.objects?.length) {
      const applied = await it.store.applyObjects([...o.objects]);
      if (!applied.ok) throw new Error(`objects refused: ${JSON.stringify(applied.issues)}`);
    }
  });
  test.after.always(async () => {
    await it.stop?.();
  });
  return it;
}

/** What went wrong, for a failure message: the host's recent events, the server's journal, Ironic's log. */
export async function explain(it: RedfishTestNode, name: string, server?: SimServer): Promise<string> {
  const snap = await it.node.snapshot(`lab/${name}`);
  return [
    `host ${name}: ${snap?.state} ${snap?.status.errorType ?? ''} ${snap?.status.errorMessage ?? ''}`,
    ...(snap?.recent ?? []).slice(-10).map((e) => `  ${e.message}`),
    ...(server ? server.journal.slice(-10).map((l) => `  journal: ${l}`) : []),
    // Ironic's own words, without the API access lines.
    ...it.ironic.logTail(200).split('\n').filter((l) => !l.includes('eventlet.wsgi.server')).slice(-12),
  ].join('\n');
}

/** Polls until `cond` holds; on timeout the error carries what the host, server and Ironic said. */
export async function waitHost(it: RedfishTestNode, name: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string, server?: SimServer): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: still false after ${timeoutMs} ms\n${await explain(it, name, server)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
