import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnswer } from './answer.ts';
import { MaasApiError, TEXT_PLAIN } from './http/api-error.ts';
import type { SimClock } from './clock.ts';
import { systemClock } from './clock.ts';
import { createBackend } from './create-backend.ts';
import { DEFAULT_FLEET } from './fleet/default-fleet.ts';
import type { MaasFaults } from './fleet/faults.ts';
import { mergeFaults, NO_FAULTS } from './fleet/faults.ts';
import { simMachine } from './fleet/machine.ts';
import type { MaasSim, MaasSimOptions } from './options.ts';
import { NonceBook } from './http/nonces.ts';
import { send } from './http/send.ts';
import type { PathMatch } from './routes.ts';
import { matchPath } from './routes.ts';
import { validateSeedMachines } from './fleet/seed.ts';
import { siteAccounts } from './site/api-keys.ts';
import { lifecycleTimings } from './fleet/timings.ts';
import { requestUrl } from '../request-target.ts';

/** Starts a simulated MAAS on 127.0.0.1 and resolves once it listens. */
export async function startMaasSim(o: MaasSimOptions = {}): Promise<MaasSim> {
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new RangeError(`startMaasSim: port: expected 0..65535, got ${port}`);
  const timings = lifecycleTimings(o);
  const clock: SimClock = o.clock ?? systemClock;
  const seeds = validateSeedMachines(o.machines ?? DEFAULT_FLEET, 'machines');
  const { adminKey, userKey, accounts } = siteAccounts(o.keys);

  let faults: MaasFaults = mergeFaults({ ...NO_FAULTS }, o.faults ?? {});
  const backend = createBackend(o, { seeds, accounts, timings, clock, faults: () => faults });
  const { fleet } = backend;
  if (faults.broken.length > 0) fleet.breakMachines(faults.broken);
  fleet.bmcOutage(faults.bmcOutage);

  const nonces = new NonceBook();
  let requests = 0;
  let byRoute: Record<string, number> = {};
  const pendingDelays = new Set<unknown>();

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const handle = clock.setTimeout(() => {
        pendingDelays.delete(handle);
        resolve();
      }, ms);
      pendingDelays.add(handle);
    });

  const answer = createAnswer({
    backend,
    nonces,
    faults: () => faults,
    delay,
    countRoute: (label) => {
      byRoute[label] = (byRoute[label] ?? 0) + 1;
    },
    port: () => listeningPort,
  });

  const server = http.createServer((req, res) => {
    requests++;
    const url = requestUrl(req, res, 'http://127.0.0.1');
    if (url === null) return;
    let match: PathMatch | undefined;
    try {
      match = matchPath(url.pathname);
    } catch {
      match = undefined;
    }
    answer(req, res, match, url).catch((err: unknown) => {
      if (err instanceof MaasApiError) send(res, err.status, err.body, err.contentType, err.headers);
      // Never echo the failure: it could carry request data. The status says enough.
      else send(res, 500, 'Internal Server Error', TEXT_PLAIN);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const listeningPort = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${listeningPort}/MAAS`,
    adminKey,
    userKey,
    machines: () => fleet.all().map(simMachine),
    seeds: () => fleet.toSeeds((id) => backend.network.subnetInfo(String(id))?.cidr),
    machine: (idOrHostname) => {
      const m = fleet.find(idOrHostname);
      return m ? simMachine(m) : undefined;
    },
    dnsResources: () => backend.dns.snapshot(),
    files: () => backend.files.snapshot(),
    reservedIps: () => backend.ips.snapshot().map((r) => ({ ip: r.ip, user: r.user, subnet: backend.network.subnetOfAddress(r.ip)?.cidr })),
    counts: () => ({ deploying: fleet.deployingNow(), maxDeploying: fleet.maxDeploying(), requests, byRoute: { ...byRoute } }),
    resetCounts: () => {
      requests = 0;
      byRoute = {};
      fleet.resetHighWater();
      fleet.powerActions.reset();
    },
    powerActions: (idOrHostname) => {
      const m = fleet.find(idOrHostname);
      if (!m) throw new Error(`powerActions: no machine ${idOrHostname}`);
      return fleet.powerActions.of(m.systemId);
    },
    setFaults: (change) => {
      faults = mergeFaults(faults, change);
      if (change.broken) fleet.breakMachines(change.broken);
      if (change.bmcOutage) fleet.bmcOutage(change.bmcOutage);
    },
    powerOff: (systemId) => fleet.powerOff(systemId),
    stop: async () => {
      fleet.stop();
      for (const handle of pendingDelays) clock.clearTimeout(handle);
      pendingDelays.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
