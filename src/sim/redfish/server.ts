import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { handler } from './http/handle.ts';
import { compileRoutes } from './http/router.ts';
import { Sessions } from './http/sessions.ts';
import type { World } from './http/context.ts';
import { buildSystem } from './model/build.ts';
import type { SimSystem, SimSystemInfo } from './model/system.ts';
import { Tasks } from './model/tasks.ts';
import { RedfishSimOptionsSchema } from './options.ts';
import type { RedfishSimOptions } from './options.ts';
import { SimSystemSpecSchema } from './options.ts';
import { biosResources } from './resources/bios.ts';
import { chassisResources } from './resources/chassis.ts';
import { hardwareResources } from './resources/hardware.ts';
import { managerResources } from './resources/managers.ts';
import { metadataResources } from './resources/metadata.ts';
import { registryResources } from './resources/registries.ts';
import { rootResources } from './resources/root.ts';
import { secureBootResources } from './resources/secure-boot.ts';
import { storageResources } from './resources/storage.ts';
import { systemResources } from './resources/systems.ts';
import { updateResources } from './resources/update.ts';
import { selfSignedCert } from './tls.ts';

export interface RedfishSim {
  /** http://127.0.0.1:PORT, or https://127.0.0.1:PORT with tls. */
  url: string;
  /** With tls: the self-signed certificate (PEM), which is its own CA; give it to a client as its CA to verify. */
  certificate: string | null;
  systems: SimSystemInfo[];
  /** The system with this id; throws for an unknown id. */
  system(id: string): SimSystem;
  stop(): Promise<void>;
}

const RESOURCES = [...rootResources, ...metadataResources, ...systemResources, ...hardwareResources, ...storageResources, ...biosResources, ...secureBootResources, ...managerResources, ...chassisResources, ...updateResources, ...registryResources];

/** One HTTP (or, with tls, HTTPS) server on 127.0.0.1 hosting N simulated BMCs, sushy-tools style (Systems/<id>). */
export async function startRedfishSim(options: RedfishSimOptions = {}): Promise<RedfishSim> {
  const opts = RedfishSimOptionsSchema.parse(options);
  const specs = typeof opts.systems === 'number' ? Array.from({ length: opts.systems }, () => SimSystemSpecSchema.parse({})) : opts.systems;
  const ids = specs.map((spec, i) => spec.id ?? `node-${i}`);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`startRedfishSim: two systems have the id ${twice}`);
  const stopping = new AbortController();
  const world: World = { systems: new Map(), sessions: new Sessions(opts.now), tasks: new Tasks(), updateMs: opts.updateMs, stopping: stopping.signal };
  const handle = handler(world, compileRoutes(RESOURCES));
  const tls = opts.tls ? await selfSignedCert() : null;
  const server = tls === null ? createServer(handle) : createTlsServer({ key: tls.key, cert: tls.cert }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `${tls === null ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  specs.forEach((spec, i) => {
    const s = buildSystem(spec, i, url, { username: opts.username, ...(opts.password === undefined ? {} : { password: opts.password }) });
    world.systems.set(s.id, s);
  });
  return {
    url,
    certificate: tls?.cert ?? null,
    systems: [...world.systems.values()].map((s) => s.info),
    system(id) {
      const s = world.systems.get(id);
      if (!s) throw new Error(`startRedfishSim: no system ${id} (have ${[...world.systems.keys()].join(', ')})`);
      return s;
    },
    async stop() {
      stopping.abort();
      world.tasks.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
