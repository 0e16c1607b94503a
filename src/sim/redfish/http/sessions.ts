import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SimSystem } from '../model/system.ts';

// An account is a user name and password; it authorizes every system configured with exactly
// those credentials (by default each system has its own, so an account is one system's BMC).
// A session inherits its account's systems and nothing else.
export interface Session {
  id: string;
  token: string;
  username: string;
  systemIds: readonly string[];
  created: string;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The systems these credentials open, leaving out systems told to refuse every credential. */
export function systemsFor(systems: Iterable<SimSystem>, username: string, password: string): string[] {
  const out: string[] = [];
  for (const s of systems) {
    if (s.faults.refuseCredentials) continue;
    if (same(s.info.username, username) && same(s.info.password, password)) out.push(s.id);
  }
  return out;
}

export class Sessions {
  private readonly byToken = new Map<string, Session>();
  private readonly byId = new Map<string, Session>();
  private next = 1;

  create(username: string, systemIds: readonly string[]): Session {
    const session: Session = { id: String(this.next++), token: randomBytes(24).toString('base64url'), username, systemIds, created: new Date().toISOString() };
    this.byToken.set(session.token, session);
    this.byId.set(session.id, session);
    return session;
  }

  byTokenOf(token: string): Session | undefined {
    return this.byToken.get(token);
  }

  get(id: string): Session | undefined {
    return this.byId.get(id);
  }

  /** Sessions that share a system with `systemIds`: what that caller may list. */
  visibleTo(systemIds: readonly string[]): Session[] {
    return [...this.byId.values()].filter((s) => s.systemIds.some((id) => systemIds.includes(id)));
  }

  delete(id: string): void {
    const s = this.byId.get(id);
    if (!s) return;
    this.byId.delete(id);
    this.byToken.delete(s.token);
  }
}
