import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate } from './authenticate.ts';
import { readJsonBody } from './body.ts';
import type { Ctx, Principal, Reply, Resource, World } from './context.ts';
import { emptyJson, errorBody, internalError, notAllowed, notFound, preconditionFailed, RedfishError, unauthorized } from './errors.ts';
import { etagOf, ifMatchHolds, ifNoneMatchHolds } from './etag.ts';
import { allowed } from './router.ts';
import type { Match } from './router.ts';
import type { SimSystem } from '../model/system.ts';

type Route = (path: string) => Match | undefined;

function send(res: ServerResponse, reply: Reply): void {
  const body = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
  res.writeHead(reply.status, {
    'OData-Version': '4.0',
    'Cache-Control': 'no-cache',
    ...(body === '' ? {} : { 'Content-Type': 'application/json; charset=utf-8' }),
    // RFC 9110 §8.6: a 304 may not claim a length other than the 200's; it sends none.
    ...(reply.status === 304 ? {} : { 'Content-Length': Buffer.byteLength(body) }),
    ...reply.headers,
  });
  res.end(body);
}

function normalize(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0] ?? '/';
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/**
 * The systems a request is about, for their faults: the one in the URL, else the caller's. A system
 * the caller's credentials do not open is on another BMC, whose faults this one does not share.
 */
function faultSystems(world: World, params: Record<string, string>, principal: Principal | undefined): SimSystem[] {
  const named = params.sys === undefined ? undefined : world.systems.get(params.sys);
  if (named && (!principal || principal.systemIds.includes(named.id) || principal.refusedIds?.includes(named.id) === true)) return [named];
  return (principal?.systemIds ?? []).flatMap((id) => world.systems.get(id) ?? []);
}

/**
 * The fault a request meets. One about a system meets that system's. One naming none (the service
 * root, a collection, UpdateService) is about the caller's BMC: an account of one system meets that
 * system's faults, but an account several systems share (--password-file) stands for a rack of
 * BMCs, each its own endpoint, so such a request fails only as all of them do and waits only as
 * long as the quickest: one faulty system made the service root (read with Basic credentials),
 * /Systems, /Managers and UpdateService answer 500 to every other system's client.
 */
function faultOf(systems: readonly SimSystem[]): { latencyMs: number; serverError: boolean } {
  if (systems.length === 0) return { latencyMs: 0, serverError: false };
  return { latencyMs: Math.min(...systems.map((s) => s.faults.latencyMs)), serverError: systems.every((s) => s.faults.serverError) };
}

async function dispatch(req: IncomingMessage, world: World, route: Route): Promise<Reply> {
  // HEAD is a GET whose body Node's ServerResponse leaves out (RFC 9110: servers support both).
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const path = normalize(req.url);
  const match = route(path);
  if (!match) throw notFound(path);
  const { resource, params } = match;
  const methods = allowed(resource);
  if (!(methods as string[]).includes(method)) throw notAllowed(method, path, methods.join(', '), resource.notAllowedResolution?.(path));
  const principal = authenticate(req.headers, world);
  const fault = faultOf(faultSystems(world, params, principal));
  const latency = fault.latencyMs;
  // A slow BMC's answer waits here; stop() aborts the wait (its connection is closed anyway), or a
  // stopped sim kept its process alive for up to the fault's latency (ten minutes at most).
  if (latency > 0) await sleep(latency, undefined, { signal: world.stopping });
  if (fault.serverError) throw internalError();
  const isPublic = resource.public?.includes(method) === true;
  if (!principal && !isPublic) throw unauthorized();
  const { body, sent } = await readJsonBody(req);
  const ctx: Ctx = {
    method, path, params, headers: req.headers, body, world,
    principal: principal ?? { systemIds: [] },
    system: () => {
      const s = params.sys === undefined ? undefined : world.systems.get(params.sys);
      // A system of the caller's account that refuses it: its BMC refused the credentials (401),
      // as it does when they open no other system; not absent (404).
      if (s && ctx.principal.refusedIds?.includes(s.id) === true) throw unauthorized();
      // Each BMC serves its own system: another one's URIs are unknown to it (404, as on real
      // BMCs and sushy-tools' SUSHY_EMULATOR_ALLOWED_INSTANCES), never 403, on which sushy logs in
      // again, retries and then parses the error body as the resource.
      if (!s || !ctx.principal.systemIds.includes(s.id)) throw notFound(path);
      return s;
    },
  };
  if (params.sys !== undefined) ctx.system();
  try {
    // DSP0266: a PATCH of {} asks for nothing; Base.EmptyJSON says so (a bodiless PATCH is left as before).
    if (method === 'PATCH' && sent && Object.keys(body).length === 0 && resource.patchRequires === undefined) throw emptyJson();
    return await run(resource, method, ctx);
  } catch (err) {
    // The system's own BMC answers: its errors cite the Base registry its firmware speaks.
    if (err instanceof RedfishError && params.sys !== undefined) err.registry = ctx.system().bmc.baseRegistry;
    throw err;
  }
}

function run(resource: Resource, method: string, ctx: Ctx): Reply | Promise<Reply> {
  if (method === 'GET') {
    // DSP0266: a GET names the methods the resource allows; sushy reads it to choose PATCH over an action.
    const allow = allowed(resource).join(', ');
    if (resource.getReply) return Promise.resolve(resource.getReply(ctx)).then((reply) => ({ ...reply, headers: { Allow: allow, ...reply.headers } }));
    const body = resource.get?.(ctx) ?? {};
    const etag = etagOf(body);
    // DSP0266 If-None-Match: the client's copy is current, so 304 with the ETag and no body.
    const ifNoneMatch = ctx.headers['if-none-match'];
    if (ifNoneMatchHolds(typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, etag)) return { status: 304, headers: { ETag: etag, Allow: allow } };
    return { status: 200, body, headers: { ETag: etag, Allow: allow } };
  }
  const handler = method === 'PATCH' ? resource.patch : method === 'POST' ? resource.post : resource.delete;
  if (!handler) throw notAllowed(method, ctx.path, allowed(resource).join(', '));
  if ((method === 'PATCH' || method === 'DELETE') && resource.get) {
    const header = ctx.headers['if-match'];
    if (!ifMatchHolds(typeof header === 'string' ? header : undefined, etagOf(resource.get(ctx)))) throw preconditionFailed(ctx.path);
  }
  return handler(ctx);
}

export function handler(world: World, route: Route): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    dispatch(req, world, route).then(
      (reply) => send(res, reply),
      (err: unknown) => {
        if (err instanceof RedfishError) send(res, { status: err.status, body: errorBody(err), headers: err.headers });
        else send(res, { status: 500, body: errorBody(new RedfishError(500, 'InternalError', 'The request failed due to an internal service error.')) });
        // A reply before the body was read: drain it so the connection stays usable.
        req.resume();
      },
    );
  };
}
