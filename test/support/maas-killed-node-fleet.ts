// The MAAS fleet the killed-node tests share: four Cluster API clusters of one control-plane
// machine and one worker each, on a MAAS simulator of eight machines, in 16 shards with a lease
// long enough (30 s) that a test looks well inside it after a node is killed.
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import type { ClusterOptions } from './cluster.ts';

export interface MaasKilledNodeFleet {
  /** withCluster's options: the simulator, the Secrets for the nodes' --secrets file. */
  readonly options: ClusterOptions;
  /** Everything else to apply once the nodes run. */
  readonly objects: readonly unknown[];
}

export function maasKilledNodeFleet(): MaasKilledNodeFleet {
  const all = ['k0', 'k1', 'k2', 'k3'].flatMap((cl) => generateMaasCluster({ namespace: 'capi', cluster: cl, controlPlane: 1, workers: 1 }));
  const isSecret = (o: unknown): boolean => (o as { kind?: string }).kind === 'Secret';
  const machines = Array.from({ length: 8 }, (_, i) => ({ hostname: `node-${i}`, zone: 'az1', cpuCount: 4, memoryMb: 8192 }));
  return {
    options: { shards: 16, leaseTtlMs: 30_000, maas: { deployMs: 50, releaseMs: 50, machines }, secrets: all.filter(isSecret), nodeArgs: ['--limit', '0'] },
    objects: all.filter((o) => !isSecret(o)),
  };
}
