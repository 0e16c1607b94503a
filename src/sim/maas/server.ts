import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { APPLICATION_JSON, badRequest, MaasApiError, TEXT_PLAIN } from './http/api-error.ts';
import type { SimClock } from './clock.ts';
import { systemClock } from './clock.ts';
import { DEFAULT_FLEET } from './fleet/default-fleet.ts';
import { DnsResources } from './places/dns.ts';
import type { MaasFaults } from './fleet/faults.ts';
import { mergeFaults, NO_FAULTS } from './fleet/faults.ts';
import { DEFAULT_ZONE_ADDRESSES, Fleet } from './fleet/fleet.ts';
import { simMachine } from './fleet/machine.ts';
import type { Places } from './fleet/machine-json.ts';
import type { SimUser } from './http/oauth.ts';
import { authenticate, parseApiKey } from './http/oauth.ts';
import type { MaasSim, MaasSimOptions } from './options.ts';
import { Params } from './http/params.ts';
import type { RequestBody } from './http/request-body.ts';
import { parseBody, readBody } from './http/request-body.ts';
import { Accounts } from './site/accounts.ts';
import { MaasConfig } from './site/maas-config.ts';
import { NonceBook } from './http/nonces.ts';
import { outsideApi } from './http/outside-api.ts';
import type { PathMatch } from './routes.ts';
import type { Backend } from './backend.ts';
import { EventLog } from './fleet/events.ts';
import { Network } from './network/network.ts';
import { allowedMethods, findHandler, matchPath, resources, routeLabel } from './routes.ts';
import { NameRegistry } from './places/registry.ts';
import { validateSeedMachines } from './fleet/seed.ts';
import { TagBook } from './places/tags.ts';
import { lifecycleTimings } from './fleet/timings.ts';

const ADMIN_NAME = 'admin';
const USER_NAME = 'user';
// Who calls an anonymous resource (version/): no one in particular, and not an admin.
const ANONYMOUS: SimUser = { name: '', admin: false };

function generatedKey(): string {
  // MAAS keys are an 18-character consumer key, an 18-character token key and a 32-character secret.
  return [randomBytes(9).toString('hex'), randomBytes(9).toString('hex'), randomBytes(16).toString('hex')].join(':');
}

function buildPlaces(domains: readonly string[], seeds: ReturnType<typeof validateSeedMachines>): Places {
  const zones = new NameRegistry(1);
  for (const s of seeds) zones.add(s.zone ?? 'default');
  zones.add('default');
  // MAAS's default pool has id 0.
  const pools = new NameRegistry(1);
  const poolIds = new NameRegistry(0);
  poolIds.add('default');
  for (const s of seeds) pools.add(s.pool ?? 'default');
  for (const name of pools.names()) poolIds.add(name);
  const domainNames = [...domains, ...seeds.map((s) => s.domain ?? 'maas')];
  const registry = new NameRegistry(0);
  // MAAS's own domain, 'maas', is id 0 and the default whenever it exists.
  if (domainNames.includes('maas')) registry.add('maas');
  for (const d of domainNames) registry.add(d);
  const defaultDomain = registry.has('maas') ? 'maas' : (registry.names()[0] ?? 'maas');
  return { zones, pools: poolIds, domains: registry, defaultDomain };
}

/** Starts a simulated MAAS on 127.0.0.1 and resolves once it listens. */
export async function startMaasSim(o: MaasSimOptions = {}): Promise<MaasSim> {
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new RangeError(`startMaasSim: port: expected 0..65535, got ${port}`);
  const timings = lifecycleTimings(o);
  const clock: SimClock = o.clock ?? systemClock;
  const seeds = validateSeedMachines(o.machines ?? DEFAULT_FLEET, 'machines');
  const adminKey = o.keys?.admin ?? generatedKey();
  const userKey = o.keys?.user ?? generatedKey();
  const admin = parseApiKey(adminKey);
  const user = parseApiKey(userKey);
  // The message names the option, never the key.
  if (!admin) throw new Error("startMaasSim: keys.admin: expected 'consumer_key:token_key:token_secret'");
  if (!user) throw new Error("startMaasSim: keys.user: expected 'consumer_key:token_key:token_secret'");
  if (admin.consumerKey === user.consumerKey && admin.tokenKey === user.tokenKey) throw new Error('startMaasSim: keys.admin and keys.user must differ');
  const accounts = new Accounts();
  accounts.add({ name: ADMIN_NAME, admin: true }, admin);
  accounts.add({ name: USER_NAME, admin: false }, user);

  let faults: MaasFaults = mergeFaults({ ...NO_FAULTS }, o.faults ?? {});
  const places = buildPlaces(o.domains ?? ['maas'], seeds);
  const tags = new TagBook();
  const events = new EventLog(clock);
  const config = new MaasConfig({ enable_disk_erasing_on_release: o.eraseOnRelease ?? false });
  const fleet = new Fleet(seeds, places, tags, {
    ...timings,
    // Read at each release, so maas/ op=set_config enable_disk_erasing_on_release takes effect.
    get eraseOnRelease() {
      return config.get('enable_disk_erasing_on_release') === true;
    },
    zoneAddresses: o.zoneAddresses ?? DEFAULT_ZONE_ADDRESSES,
    clock,
    faults: () => faults,
    seedOwner: ADMIN_NAME,
    events,
    speed: o.speed ?? 1,
  });
  if (faults.broken.length > 0) fleet.breakMachines(faults.broken);
  const backend: Backend = { fleet, dns: new DnsResources(places, clock), tags, places, network: new Network(places), events, accounts, config };

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

  const send = (res: http.ServerResponse, status: number, body: string, contentType: string | undefined, headers: Readonly<Record<string, string>> = {}) => {
    if (res.headersSent || res.destroyed) return;
    const all: Record<string, string | number> = { ...headers };
    if (contentType !== undefined) {
      all['Content-Type'] = contentType;
      all['Content-Length'] = Buffer.byteLength(body);
    }
    res.writeHead(status, all);
    res.end(body);
  };

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, match: PathMatch | undefined, url: URL): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase();
    const rawBody = await readBody(req);
    const query = Params.parse(url.search.slice(1));
    // A body that cannot be read only matters once a resource is found (MAAS's 404s never parse it).
    let body: RequestBody = { params: Params.empty(), urlencoded: false };
    let unreadable: unknown;
    try {
      body = parseBody(rawBody, req.headers['content-type']);
    } catch (err) {
      unreadable = err;
    }
    // op dispatch (support.py): GET["op"] or POST["op"], else the /op-<name> path suffix.
    const op = (query.get('op') || body.params.get('op')) ?? match?.pathOp;
    const label = routeLabel(method, match?.resource, op);
    byRoute[label] = (byRoute[label] ?? 0) + 1;

    if (faults.latencyMs > 0) await delay(faults.latencyMs);
    if (faults.serverErrorRate > 0 && faults.random() < faults.serverErrorRate) {
      throw new MaasApiError(503, 'Service Unavailable: the simulator injected this failure (faults.serverErrorRate).');
    }
    const host = (req.headers.host ?? `127.0.0.1:${listeningPort}`).toLowerCase().replace(/:80$/, '');
    const siteUrl = `http://${host}/MAAS`;
    if (!match) {
      const outside = outsideApi(url.pathname, url.search, siteUrl, resources());
      send(res, outside.status, outside.text, outside.contentType, outside.headers);
      return;
    }
    if (unreadable !== undefined) throw unreadable;

    const user = match.resource.anonymous
      ? ANONYMOUS
      : authenticate(
          {
            method,
            baseUrl: `http://${host}${url.pathname}`,
            // A POST's urlencoded body is signed; a PUT's and a multipart one's are not (piston's
            // initialize_server_request, oauthlib).
            params: [...query.pairs, ...(method === 'POST' && body.urlencoded ? body.params.pairs : [])],
            authorization: req.headers.authorization,
          },
          accounts.credentials(),
          (ck, tk, nonce, timestamp) => nonces.check(ck, tk, nonce, timestamp),
        );
    const allowed = allowedMethods(match.resource);
    // Django's HttpResponseNotAllowed: an empty HTML answer with Allow.
    if (!allowed.includes(method)) throw new MaasApiError(405, '', 'text/html; charset=utf-8', { Allow: allowed.join(', ') });
    const handler = findHandler(match.resource, method, op);
    if (!handler) throw badRequest(`Unrecognised signature: method=${method} op=${op ?? 'None'}`);
    // GET and DELETE read the query string (plus a body, since clients send one even on GET).
    const params = method === 'GET' || method === 'DELETE' ? query.concat(body.params) : body.params;
    const reply = handler(backend, { user, id: match.id ?? '', params, siteUrl });
    if (reply.status === 204) send(res, 204, '', undefined);
    else if ('text' in reply) send(res, 200, reply.text, reply.contentType);
    else send(res, 200, JSON.stringify(reply.json), APPLICATION_JSON);
  };

  const server = http.createServer((req, res) => {
    requests++;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
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
    seeds: () => fleet.toSeeds(),
    machine: (idOrHostname) => {
      const m = fleet.find(idOrHostname);
      return m ? simMachine(m) : undefined;
    },
    dnsResources: () => backend.dns.snapshot(),
    counts: () => ({ deploying: fleet.deployingNow(), maxDeploying: fleet.maxDeploying(), requests, byRoute: { ...byRoute } }),
    resetCounts: () => {
      requests = 0;
      byRoute = {};
      fleet.resetHighWater();
    },
    setFaults: (change) => {
      faults = mergeFaults(faults, change);
      if (change.broken) fleet.breakMachines(change.broken);
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
