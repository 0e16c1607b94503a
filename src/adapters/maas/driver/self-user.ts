import type { MaasClient } from '../client/index.ts';

/** The MAAS user a driver's API key authenticates as, asked once and kept. */
export interface SelfUser {
  username(): Promise<string>;
}

// A driver holds one client and so one key: the name is asked of MAAS (users/?op=whoami) the
// first time a read needs it and kept for the driver's life. Concurrent first reads share the one
// request; a failure is not kept, so the next read asks again.
export function selfUser(client: Pick<MaasClient, 'whoami'>): SelfUser {
  let known: Promise<string> | null = null;
  return {
    username() {
      if (known === null) {
        const asking = client.whoami().then((u) => u.username);
        known = asking;
        asking.catch(() => {
          if (known === asking) known = null;
        });
      }
      return known;
    },
  };
}
