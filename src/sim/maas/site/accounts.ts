import { randomInt } from 'node:crypto';
import { notFound } from '../http/api-error.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import type { ApiKey, Credential, SimUser } from '../http/oauth.ts';

// The users of the simulated MAAS and their OAuth tokens (piston's Consumer + Token). A token made
// through account/ op=create_authorisation_token is a key the simulator accepts from then on.

/** What MAAS names a consumer when the client gives no name (maascommon GENERIC_CONSUMER). */
export const GENERIC_CONSUMER = 'MAAS consumer';

export interface Token {
  readonly name: string;
  readonly key: ApiKey;
}

interface Account {
  readonly user: SimUser;
  readonly email: string;
  tokens: Token[];
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// piston's generate_random_codes: an 18-character key, a 32-character secret.
function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export class Accounts {
  private readonly accounts = new Map<string, Account>();

  add(user: SimUser, key: ApiKey): void {
    this.accounts.set(user.name, { user, email: `${user.name}@example.com`, tokens: [{ name: GENERIC_CONSUMER, key }] });
  }

  /** Every token of every user: what a request's OAuth header is checked against. */
  credentials(): Credential[] {
    return [...this.accounts.values()].flatMap((a) => a.tokens.map((t) => ({ key: t.key, user: a.user })));
  }

  /** A user as users/ renders it (UserHandler fields plus resource_uri). */
  userJson(name: string) {
    const a = this.accounts.get(name);
    if (!a) throw notFound('User');
    return {
      is_superuser: a.user.admin,
      username: a.user.name,
      email: a.email,
      is_local: true,
      resource_uri: `${API_PREFIX}/users/${encodeURIComponent(a.user.name)}/`,
    };
  }

  /** users/ GET: ordered by username, as MAAS does. */
  list() {
    return [...this.accounts.keys()].sort().map((name) => this.userJson(name));
  }

  createToken(user: SimUser, name: string | undefined): Token {
    const account = this.account(user);
    const token: Token = { name: name ?? GENERIC_CONSUMER, key: { consumerKey: randomCode(18), tokenKey: randomCode(18), tokenSecret: randomCode(32) } };
    account.tokens.push(token);
    return token;
  }

  /** Only the caller's own tokens can be deleted; another key is get_object_or_404's 404. */
  deleteToken(user: SimUser, tokenKey: string): void {
    const account = this.account(user);
    const kept = account.tokens.filter((t) => t.key.tokenKey !== tokenKey);
    if (kept.length === account.tokens.length) throw notFound('Token');
    account.tokens = kept;
  }

  tokens(user: SimUser): readonly Token[] {
    return this.account(user).tokens;
  }

  private account(user: SimUser): Account {
    const a = this.accounts.get(user.name);
    if (!a) throw notFound('User');
    return a;
  }
}
