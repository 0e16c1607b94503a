import type { NatsAuth } from './nats-transport.ts';

// Each user's replies land under its own prefix, `_INBOX_<user>`, and the server lets a user
// subscribe only to its own (deploy/nats/config.yaml): with the shared `_INBOX.>` every user read
// every other client's replies (issue 33). A token, nkey or creds login names no user here, so
// such a client keeps the client's default `_INBOX` and needs its own permissions for it.

/** A user name that is one subject token: no dot, wildcard or space could widen another's prefix. */
const USER_TOKEN = /^[A-Za-z0-9_-]+$/;

export const SHARED_INBOX_PREFIX = '_INBOX';

/** The inbox prefix a connection with `auth` uses; undefined when the login names no user. */
export function inboxPrefixFor(auth: NatsAuth | undefined): string | undefined {
  if (!auth || !('user' in auth)) return undefined;
  return `${SHARED_INBOX_PREFIX}_${auth.user}`;
}

/** Why `user` cannot name a private inbox, or null when it can. */
export function inboxUserProblem(user: string): string | null {
  if (USER_TOKEN.test(user)) return null;
  return `NATS user name "${user}" cannot name a private inbox (_INBOX_<user>): use only letters, digits, "-" and "_"`;
}
