// The one node on a private memory substrate, as the embedded default runs it: what unit and
// integration tests drive. stop() also closes the substrate. Pass a substrate to open other
// things on it first (the host store the node runs on: see startTestNode).
import type { Node, NodeBackends, NodeConfig, NodeRuntime, NodeStores, Substrate } from '../../src/node/index.ts';
import { memorySubstrate, startNode } from '../../src/node/index.ts';
import { silentLogger } from '../../src/ports/index.ts';

export type LocalNode = Node;

export async function startLocalNode(config: NodeConfig, stores: NodeStores, backends: NodeBackends, runtime: Partial<NodeRuntime> = {}, substrate: Substrate = memorySubstrate()): Promise<LocalNode> {
  const node = await startNode({ ...config, cluster: { drainTimeoutMs: 2_000, ...config.cluster } }, substrate, stores, backends, { log: silentLogger, ...runtime });
  return {
    ...node,
    async stop(options) {
      await node.stop(options);
      await substrate.transport.close();
    },
  };
}
