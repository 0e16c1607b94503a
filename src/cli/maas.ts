import { createMaasClient } from '../adapters/maas/client/index.ts';
import { createMaasDriver } from '../adapters/maas/driver/index.ts';
import type { MaasDriver } from '../ports/index.ts';
import { startMaasSim } from '../sim/maas/index.ts';
import { CliError } from './cli-error.ts';
import { errorMessage } from '../api/index.ts';

export interface MaasSetup {
  readonly driver: MaasDriver;
  readonly simulated: boolean;
  stop(): Promise<void>;
}

// A real MAAS (URL and key), or by default the simulator on loopback: the same client either way.
// `keySource` says where the key came from (`--maas-key`, `--maas-key-file FILE`; default
// MAAS_API_KEY), so a key MAAS rejects is traced to it in the message; never the key itself.
export async function maasSetup(o: { url?: string; key?: string; keySource?: string; signature?: 'PLAINTEXT' | 'HMAC-SHA1'; simDeployMs?: number }): Promise<MaasSetup> {
  if ((o.url === undefined) !== (o.key === undefined)) throw new CliError('--maas and --maas-key (or MAAS_ENDPOINT and MAAS_API_KEY) go together', 2);
  const sim = o.url === undefined ? await startMaasSim({ deployMs: o.simDeployMs ?? 500, releaseMs: 100 }) : null;
  const endpoint = o.url ?? sim?.url ?? '';
  const apiKey = o.key ?? sim?.adminKey ?? '';
  let client;
  try {
    client = createMaasClient({ endpoint, apiKey, ...(o.signature ? { signature: o.signature } : {}), ...(sim === null && o.keySource !== undefined ? { keySource: o.keySource } : {}) });
  } catch (err) {
    await sim?.stop();
    throw new CliError(`MAAS: ${errorMessage(err)}`, 2);
  }
  return {
    driver: createMaasDriver(client),
    simulated: sim !== null,
    async stop() {
      client.close();
      await sim?.stop();
    },
  };
}
