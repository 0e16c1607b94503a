import { z } from 'zod';
import type { Call, Send } from './call.ts';
import { parse } from './call.ts';

// users/?op=whoami (MAAS's UsersHandler.whoami): the user the API key belongs to, rendered with
// UserHandler's fields (username, email, is_local, is_superuser) and resource_uri.
export const MaasUser = z.looseObject({
  username: z.string().min(1),
  email: z.string().nullable().optional(),
  is_superuser: z.boolean(),
});
export type MaasUser = z.infer<typeof MaasUser>;

export interface UserCalls {
  /** The MAAS user this client's API key authenticates as. */
  whoami(): Promise<MaasUser>;
}

export function userCalls(request: Send): UserCalls {
  return {
    async whoami() {
      const c: Call = { method: 'GET', path: '/users/', route: 'GET /users/ op=whoami', query: [['op', 'whoami']] };
      return parse(c, MaasUser, await request(c));
    },
  };
}
