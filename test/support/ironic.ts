// A private, real Ironic for one test file: the launcher is src/sim/ironic (the demo and the
// benches start it too); this adds the fixture tests use.
import type { TestFn } from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Provisioner } from '../../src/ports/index.ts';
import { startIronic } from '../../src/sim/ironic/index.ts';
import type { IronicServer } from '../../src/sim/ironic/index.ts';

export { freePort, ironicInstalled, startIronic } from '../../src/sim/ironic/index.ts';
export type { FakeDelayKind, IronicServer, StartIronicOptions } from '../../src/sim/ironic/index.ts';

/** A real Ironic for one test file, with a client and a fake-hardware provisioner on it (fast polls, no image check). */
export interface IronicProvisionerFixture {
  readonly ironic: IronicServer;
  readonly client: IronicClient;
  readonly provisioner: Provisioner;
}

/**
 * Starts one in the file's before hook and stops it after; read the fields inside tests. `polls`:
 * the provisioner's short and long polls (default 50 and 100 ms).
 */
export function useIronicProvisioner(test: TestFn, polls: { readonly shortMs: number; readonly longMs: number } = { shortMs: 50, longMs: 100 }): IronicProvisionerFixture {
  const it = {} as { ironic: IronicServer; client: IronicClient; provisioner: Provisioner };
  test.before(async () => {
    it.ironic = await startIronic();
    it.client = createIronicClient({ endpoint: it.ironic.url, timeoutMs: 10_000 });
    await it.client.connect();
    it.provisioner = createIronicProvisioner({ client: it.client, driverOverride: { hardwareType: 'fake-hardware' }, polls, imageCheck: { enabled: false } });
  });
  test.after.always(async () => {
    it.client?.close();
    await it.ironic?.stop();
  });
  return it;
}
