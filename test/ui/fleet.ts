// A small embedded fleet for the dashboard's tests: hosts with BMC credentials and a userData
// Secret holding values that must never reach the page, and the dashboard over the node's bus.
import { startTestNode, bmh, secret, type TestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { commandGate, startUiServer, type UiServer } from '../../src/ui/index.ts';

export const BMC_USER = 'dashboard-admin-user';
export const BMC_PASSWORD = 'S3cret-BMC-passw0rd-9f3a';
export const USER_DATA = '#cloud-config\npassword: user-data-s3cret-77c1\n';
export const SECRETS = [BMC_PASSWORD, 'user-data-s3cret-77c1', BMC_USER];

export interface UiFleet {
  readonly node: TestNode;
  readonly ui: UiServer;
  readonly keys: readonly string[];
  readonly token: string | null;
  stop(): Promise<void>;
}

function withUserData(name: string): unknown {
  const host = bmh(name, { credentialsName: 'bmc-creds' }) as { spec: Record<string, unknown> };
  return { ...host, spec: { ...host.spec, userData: { name: 'ud', namespace: 'lab' } } };
}

export async function startUiFleet(o: { hosts?: number; commands?: boolean } = {}): Promise<UiFleet> {
  const n = o.hosts ?? 6;
  const hosts = Array.from({ length: n }, (_, i) => withUserData(`web-${i}`));
  const node = await startTestNode({
    objects: [secret('bmc-creds', 'lab', { username: BMC_USER, password: BMC_PASSWORD }), secret('ud', 'lab', { userData: USER_DATA }), ...hosts],
    fixture: { latencyMs: 2, demoBehaviours: false },
  });
  const keys = Array.from({ length: n }, (_, i) => `lab/web-${i}`);
  await waitUntil(() => keys.every((k) => node.node.stats.hosts.get(k)?.state === 'provisioned'), 60_000, 'every host provisioned');
  const gate = commandGate({ enabled: o.commands === true });
  const ui = await startUiServer({ transport: node.substrate.transport, gate, shardCount: 16, intervalMs: 200, port: 0, bind: '127.0.0.1' });
  return {
    node, ui, keys, token: gate.token,
    async stop() {
      await ui.close();
      await node.node.stop();
    },
  };
}
