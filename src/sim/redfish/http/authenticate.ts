import type { IncomingHttpHeaders } from 'node:http';
import type { Principal, World } from './context.ts';
import { systemsFor } from './sessions.ts';

/** Who sent these headers: an X-Auth-Token session, else Basic credentials; undefined if neither holds. */
export function authenticate(headers: IncomingHttpHeaders, world: World): Principal | undefined {
  const token = headers['x-auth-token'];
  if (typeof token === 'string' && token !== '') {
    const session = world.sessions.byTokenOf(token);
    if (!session) return undefined;
    // A system told to refuse credentials refuses its live sessions too.
    const systemIds = session.systemIds.filter((id) => world.systems.get(id)?.faults.refuseCredentials === false);
    return systemIds.length > 0 ? { systemIds, sessionId: session.id } : undefined;
  }
  const auth = headers.authorization;
  if (typeof auth !== 'string' || !auth.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const systemIds = systemsFor(world.systems.values(), decoded.slice(0, colon), decoded.slice(colon + 1));
  return systemIds.length > 0 ? { systemIds } : undefined;
}
