import type { IncomingHttpHeaders } from 'node:http';
import type { Principal, World } from './context.ts';
import { accountOf } from './sessions.ts';

/**
 * Who sent these headers: an X-Auth-Token session, else Basic credentials; undefined if neither
 * holds. Each scheme is tried on its own, as bmcweb's authenticate() tries Basic, then the token:
 * a stale token beside valid Basic credentials (a client whose session expired, still sending
 * both) is the Basic caller, not a 401.
 */
export function authenticate(headers: IncomingHttpHeaders, world: World): Principal | undefined {
  return bySession(headers, world) ?? byBasic(headers, world);
}

function bySession(headers: IncomingHttpHeaders, world: World): Principal | undefined {
  const token = headers['x-auth-token'];
  if (typeof token !== 'string' || token === '') return undefined;
  const session = world.sessions.byTokenOf(token);
  if (!session) return undefined;
  // A system told to refuse credentials refuses its live sessions too.
  const systemIds = session.systemIds.filter((id) => world.systems.get(id)?.faults.refuseCredentials === false);
  const refusedIds = [...session.refusedIds, ...session.systemIds.filter((id) => !systemIds.includes(id))];
  return systemIds.length > 0 ? { systemIds, refusedIds, sessionId: session.id } : undefined;
}

function byBasic(headers: IncomingHttpHeaders, world: World): Principal | undefined {
  const auth = headers.authorization;
  if (typeof auth !== 'string' || !auth.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const { open, refused } = accountOf(world.systems.values(), decoded.slice(0, colon), decoded.slice(colon + 1));
  return open.length > 0 ? { systemIds: open, refusedIds: refused } : undefined;
}
