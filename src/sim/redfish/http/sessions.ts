import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SimSystem } from '../model/system.ts';

// An account is a user name and password; it authorizes every system configured with exactly
// those credentials (by default each system has its own, so an account is one system's BMC).
// A session inherits its account's systems and nothing else, and ends once idle for longer than
// the SessionService's SessionTimeout, as on real BMCs (a client then gets 401 and logs in again).
export interface Session {
  id: string;
  token: string;
  username: string;
  systemIds: readonly string[];
  /**
   * Systems of the account that refused the login (told to refuse every credential): on their own
   * BMC the login failed, so this session is refused there (401), never taken for absent (404).
   */
  refusedIds: readonly string[];
  created: string;
  /** When a request last came with its token (epoch ms). */
  lastUsed: number;
}

/** SessionService.SessionTimeout: the idle seconds after which a session ends (the schema's default). */
export const SESSION_TIMEOUT_S = 1800;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The systems configured with these credentials: `open`, those they open, and `refused`, those
 * told to refuse every credential. An account several systems share (--password-file) stands for
 * as many BMCs: one refusing it answers 401 for its own resources, not 404 as if it were absent.
 */
export function accountOf(systems: Iterable<SimSystem>, username: string, password: string): { open: string[]; refused: string[] } {
  const open: string[] = [];
  const refused: string[] = [];
  for (const s of systems) {
    if (same(s.info.username, username) && same(s.info.password, password)) (s.faults.refuseCredentials ? refused : open).push(s.id);
  }
  return { open, refused };
}

/** The systems these credentials open, leaving out systems told to refuse every credential. */
export function systemsFor(systems: Iterable<SimSystem>, username: string, password: string): string[] {
  return accountOf(systems, username, password).open;
}

export class Sessions {
  private readonly byToken = new Map<string, Session>();
  private readonly byId = new Map<string, Session>();
  private next = 1;

  constructor(private readonly now: () => number, readonly timeoutSeconds = SESSION_TIMEOUT_S) {}

  create(username: string, systemIds: readonly string[], refusedIds: readonly string[] = []): Session {
    const at = this.now();
    const session: Session = { id: String(this.next++), token: randomBytes(24).toString('base64url'), username, systemIds, refusedIds, created: new Date(at).toISOString(), lastUsed: at };
    this.byToken.set(session.token, session);
    this.byId.set(session.id, session);
    return session;
  }

  /** The live session of this token, now used (its idle time starts again); undefined once expired. */
  byTokenOf(token: string): Session | undefined {
    this.expire();
    const s = this.byToken.get(token);
    if (s) s.lastUsed = this.now();
    return s;
  }

  get(id: string): Session | undefined {
    this.expire();
    return this.byId.get(id);
  }

  /** Sessions that share a system with `systemIds`: what that caller may list. */
  visibleTo(systemIds: readonly string[]): Session[] {
    this.expire();
    return [...this.byId.values()].filter((s) => s.systemIds.some((id) => systemIds.includes(id)));
  }

  private expire(): void {
    const now = this.now();
    for (const s of this.byId.values()) if (now - s.lastUsed > this.timeoutSeconds * 1000) this.delete(s.id);
  }

  delete(id: string): void {
    const s = this.byId.get(id);
    if (!s) return;
    this.byId.delete(id);
    this.byToken.delete(s.token);
  }
}
