// The agent's own REST API, the one Ironic's AgentClient calls on the callback URL:
// POST /v1/commands/?wait=true|false&agent_token=… runs "<extension>.<command>", GET
// /v1/commands/ lists results, GET /v1/status says it is alive. Errors carry `faultstring`, which
// Ironic reads (and a 409 or "Agent is busy" there means: try again later).
import http from 'node:http';
import type { CommandLog, CommandSpec } from './command-log.ts';
import { AgentError, invalidCommand, notFound } from './errors.ts';
import { readBody, sendJson } from './http.ts';
import { requestUrl } from '../request-target.ts';

export interface AgentApiDeps {
  readonly log: CommandLog;
  readonly commands: ReadonlyMap<string, CommandSpec>;
  /** The token from lookup; null before lookup (then every command is refused). */
  token(): string | null;
  readonly startedAt: Date;
  readonly version: string;
}

const fault = (res: http.ServerResponse, code: number, text: string): void =>
  sendJson(res, code, { faultcode: code >= 500 ? 'Server' : 'Client', faultstring: text });

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export function agentApi(deps: AgentApiDeps): http.Server {
  const tokenOk = (given: string | null): boolean => deps.token() !== null && given === deps.token();
  return http.createServer((req, res) => {
    const url = requestUrl(req, res, 'http://agent');
    if (url === null) return;
    const path = url.pathname.replace(/^\/v1(?=\/)/, '').replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    void (async () => {
      if (method === 'GET' && path === '/') return sendJson(res, 200, { name: 'OpenStack Ironic Python Agent API', versions: [{ id: 'v1' }], default_version: { id: 'v1' } });
      if (method === 'GET' && path === '/status') return sendJson(res, 200, { started_at: deps.startedAt.getTime() / 1000, version: deps.version });
      const given = url.searchParams.get('agent_token');
      if (path === '/commands' && method === 'GET') {
        // Ironic 21.4 polls the list without the token; a token that is sent must match.
        if (given !== null && !tokenOk(given)) return fault(res, 401, 'Token invalid.');
        return sendJson(res, 200, { commands: deps.log.list() });
      }
      if (path.startsWith('/commands/') && method === 'GET') {
        if (given !== null && !tokenOk(given)) return fault(res, 401, 'Token invalid.');
        const id = safeDecode(path.slice('/commands/'.length));
        const one = await deps.log.get(id, url.searchParams.get('wait')?.toLowerCase() === 'true');
        return one ? sendJson(res, 200, one) : fault(res, 404, `Not found: Command Result with id ${id} not found.`);
      }
      if (path === '/commands' && method === 'POST') {
        if (!tokenOk(given)) return fault(res, 401, 'Token invalid.');
        let body: { name?: unknown; params?: unknown };
        try {
          body = JSON.parse((await readBody(req)).toString('utf8')) as typeof body;
        } catch {
          return fault(res, 400, 'Missing or invalid name or params');
        }
        const params = body.params;
        if (body === null || typeof body.name !== 'string' || params === null || typeof params !== 'object' || Array.isArray(params)) return fault(res, 400, 'Missing or invalid name or params');
        // As IPA's execute_command: the name's form, then busy, then the extension, then the command.
        const name = body.name;
        const dot = name.indexOf('.');
        if (dot < 0) throw invalidCommand('Command name must be of the form <extension>.<name>');
        const [ext, commandName] = [name.slice(0, dot), name.slice(dot + 1)];
        const spec = (): CommandSpec => {
          const found = deps.commands.get(name);
          if (found !== undefined) return found;
          if (![...deps.commands.keys()].some((k) => k.startsWith(`${ext}.`))) throw notFound(`Extension with id ${ext} not found.`);
          throw invalidCommand(`Unknown command: ${commandName}`);
        };
        const wait = url.searchParams.get('wait')?.toLowerCase() === 'true';
        const result = await deps.log.execute(commandName, spec, params as Record<string, unknown>, wait);
        return sendJson(res, 200, result);
      }
      return fault(res, 404, `The resource ${method} ${url.pathname} could not be found.`);
    })().catch((err: unknown) => {
      if (err instanceof AgentError) return fault(res, err.code, err.message);
      fault(res, 500, err instanceof Error ? err.message : String(err));
    });
  });
}
