import { randomBytes } from 'node:crypto';
import { Accounts } from './accounts.ts';
import { parseApiKey } from '../http/oauth.ts';

// The simulator's two accounts and their API keys: given in the options, or made up.

export const ADMIN_NAME = 'admin';
const USER_NAME = 'user';

function generatedKey(): string {
  // MAAS keys are an 18-character consumer key, an 18-character token key and a 32-character secret.
  return [randomBytes(9).toString('hex'), randomBytes(9).toString('hex'), randomBytes(16).toString('hex')].join(':');
}

export interface SiteAccounts {
  readonly adminKey: string;
  readonly userKey: string;
  readonly accounts: Accounts;
}

/** The admin and the user, with `keys` or random ones; throws naming the bad option. */
export function siteAccounts(keys: { admin?: string; user?: string } | undefined): SiteAccounts {
  const adminKey = keys?.admin ?? generatedKey();
  const userKey = keys?.user ?? generatedKey();
  const admin = parseApiKey(adminKey);
  const user = parseApiKey(userKey);
  // The message names the option, never the key.
  if (!admin) throw new Error("startMaasSim: keys.admin: expected 'consumer_key:token_key:token_secret'");
  if (!user) throw new Error("startMaasSim: keys.user: expected 'consumer_key:token_key:token_secret'");
  if (admin.consumerKey === user.consumerKey && admin.tokenKey === user.tokenKey) throw new Error('startMaasSim: keys.admin and keys.user must differ');
  const accounts = new Accounts();
  accounts.add({ name: ADMIN_NAME, admin: true }, admin);
  accounts.add({ name: USER_NAME, admin: false }, user);
  return { adminKey, userKey, accounts };
}
