import type http from 'node:http';
import type { Backend } from './backend.ts';
import { APPLICATION_JSON, badRequest, MaasApiError } from './http/api-error.ts';
import type { MaasFaults } from './fleet/faults.ts';
import type { NonceBook } from './http/nonces.ts';
import type { SimUser } from './http/oauth.ts';
import { authenticate, carriesOAuth } from './http/oauth.ts';
import { outsideApi } from './http/outside-api.ts';
import { Params } from './http/params.ts';
import type { RequestBody } from './http/request-body.ts';
import { parseBody, readBody } from './http/request-body.ts';
import { send } from './http/send.ts';
import type { PathMatch } from './routes.ts';
import { allowedMethods, findHandler, resources, routeLabel } from './routes.ts';

// One request answered as MAAS's Django and piston stack would: faults, the pages outside the
// API, OAuth, the method check, op dispatch and the handler's reply.

// Who calls an anonymous resource (version/): no one in particular, and not an admin.
const ANONYMOUS: SimUser = { name: '', admin: false };

export interface AnswerDeps {
  readonly backend: Backend;
  readonly nonces: NonceBook;
  /** The faults in force now. */
  readonly faults: () => MaasFaults;
  /** Waits on the simulator's clock (injected latency). */
  readonly delay: (ms: number) => Promise<void>;
  /** Counts one request of a route label, for counts(). */
  readonly countRoute: (label: string) => void;
  /** The port the simulator listens on, for the site URL when a request names no Host. */
  readonly port: () => number;
}

export type Answer = (req: http.IncomingMessage, res: http.ServerResponse, match: PathMatch | undefined, url: URL) => Promise<void>;

export function createAnswer({ backend, nonces, faults, delay, countRoute, port }: AnswerDeps): Answer {
  return async (req, res, match, url) => {
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
    // Django fills request.POST from the body of a POST only (piston3's coerce_put_post does it
    // for a PUT); for GET and DELETE it is empty, whatever body they carry.
    const formBody = method === 'POST' || method === 'PUT' ? body.params : Params.empty();
    // op dispatch (support.py): GET["op"] or POST["op"], else the /op-<name> path suffix.
    const op = (query.get('op') || formBody.get('op')) ?? match?.pathOp;
    countRoute(routeLabel(method, match?.resource, op));

    const latencyMs = faults().latencyMs;
    if (latencyMs > 0) await delay(latencyMs);
    // Read again after the wait: setFaults may have changed them meanwhile.
    const f = faults();
    if (f.serverErrorRate > 0 && f.random() < f.serverErrorRate) {
      throw new MaasApiError(503, 'Service Unavailable: the simulator injected this failure (faults.serverErrorRate).');
    }
    const host = (req.headers.host ?? `127.0.0.1:${port()}`).toLowerCase().replace(/:80$/, '');
    const siteUrl = `http://${host}/MAAS`;
    if (!match) {
      const outside = outsideApi(url.pathname, url.search, siteUrl, resources());
      send(res, outside.status, outside.text, outside.contentType, outside.headers);
      return;
    }
    if (unreadable !== undefined) throw unreadable;

    // piston: a request without credentials goes to the resource's anonymous handler when it has
    // one for this method (its signatures then are the only ones); otherwise it is challenged.
    // Credentials may ride in the header, the query string or a POST form; only a POST's
    // urlencoded body is signed, a PUT's and a multipart one's are not (piston's
    // initialize_server_request, oauthlib).
    const carriers = { authorization: req.headers.authorization, query: query.pairs, form: method === 'POST' && body.urlencoded ? body.params.pairs : [] };
    const anonymousSignatures = match.resource.anonymousSignatures;
    const anonymousHere = anonymousSignatures !== undefined && !carriesOAuth(carriers)
      && Object.keys(anonymousSignatures).some((k) => k.split(' ')[0] === method);
    const user = match.resource.anonymous || anonymousHere
      ? ANONYMOUS
      : authenticate(
          { method, baseUrl: `http://${host}${url.pathname}`, ...carriers },
          backend.accounts.credentials(),
          (ck, tk, nonce, timestamp) => nonces.check(ck, tk, nonce, timestamp),
        );
    const allowed = allowedMethods(match.resource);
    // Django's HttpResponseNotAllowed: an empty HTML answer with Allow.
    if (!allowed.includes(method)) throw new MaasApiError(405, '', 'text/html; charset=utf-8', { Allow: allowed.join(', ') });
    const handler = anonymousHere ? findHandler({ ...match.resource, signatures: anonymousSignatures }, method, op) : findHandler(match.resource, method, op);
    if (!handler) throw badRequest(`Unrecognised signature: method=${method} op=${op ?? 'None'}`);
    // GET handlers read request.GET, DELETE ones too (files.py: "Django only makes parameters from
    // the query string available in the badly named request.GET object"): a body they carry is
    // ignored, so a client that puts a GET's parameters there meets here what MAAS does to it.
    const params = method === 'GET' || method === 'DELETE' ? query : body.params;
    const reply = handler(backend, { user, id: match.id ?? '', params, siteUrl });
    if (reply.status === 204) send(res, 204, '', undefined);
    else if ('text' in reply) send(res, 200, reply.text, reply.contentType);
    else if ('bytes' in reply) send(res, reply.status, reply.bytes, reply.contentType);
    else send(res, 200, JSON.stringify(reply.json), APPLICATION_JSON);
  };
}
