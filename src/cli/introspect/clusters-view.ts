// `metalfleet clusters`: the MaasClusters of every node, one line each (DNS name and the record's
// addresses as MAAS holds them), then per cluster its machines with their MAAS state and whether
// the record holds them, and its conditions.
import type { ClusterRow } from '../../cluster/introspect/index.ts';
import { storedClusters } from '../../cluster/introspect/index.ts';
import type { Transport } from '../../ports/index.ts';
import { formatDuration, renderFields, renderTable, type Column } from './format.ts';
import type { OnNode } from './rows.ts';
import { noAnswer, output, partialWarnings, type CommandOutput, type ViewOptions } from './session.ts';
import { gatherWithShards, ownerlessShards, ownerlessWarning } from './views.ts';

type ClusterMachine = ClusterRow['machines'][number];

export function clusterColumns(): Array<Column<OnNode<ClusterRow>>> {
  return [
    { header: 'CLUSTER', value: (c) => c.key },
    { header: 'PHASE', value: (c) => c.phase },
    { header: 'READY', value: (c) => (c.ready ? 'yes' : 'no') },
    { header: 'DNS NAME', value: (c) => c.dnsName ?? '-', max: 48 },
    { header: 'ADDRESSES', value: (c) => (c.addresses.length === 0 ? '-' : c.addresses.join(',')), max: 48 },
    { header: 'SEEN', value: (c) => formatDuration(c.addressesSeenMs), align: 'right' },
    { header: 'MACHINES', value: (c) => machineCounts(c.machines), align: 'right' },
    { header: 'SHARD', value: (c) => String(c.shard), align: 'right' },
    { header: 'NODE', value: (c) => c.node },
    { header: 'ERROR', value: (c) => c.lastError ?? c.waiting ?? '-' },
  ];
}

/** `3 (2 in DNS)`: the cluster's machines and how many the record holds. */
function machineCounts(machines: readonly ClusterMachine[]): string {
  return `${machines.length} (${machines.filter((m) => m.dnsAttached).length} in DNS)`;
}

const machineColumns: Array<Column<ClusterMachine>> = [
  { header: 'MACHINE', value: (m) => m.key },
  { header: 'ROLE', value: (m) => (m.controlPlane ? 'control-plane' : 'worker') },
  { header: 'MAAS STATE', value: (m) => m.machineState || '-', max: 26 },
  { header: 'ADDRESS', value: (m) => m.address ?? '-' },
  { header: 'IN DNS', value: (m) => (m.dnsAttached ? 'yes' : 'no') },
];

// Under the summary: each cluster's machines, and its conditions on one line.
function clusterDetail(c: OnNode<ClusterRow>, width: number): string[] {
  const conditions = c.conditions.map((x) => `${x.type}=${x.status}${x.reason ? ` (${x.reason})` : ''}`).join(', ');
  return [
    '',
    `${c.key}:`,
    ...renderFields([['conditions', conditions || '-'], ...(c.failureDomains.length > 0 ? [['failure domains', c.failureDomains.join(', ')] as const] : [])], width, '  '),
    ...(c.machines.length === 0 ? ['  no machines'] : renderTable(machineColumns, c.machines, { width: width - 2 }).map((l) => `  ${l}`)),
  ];
}

export async function clustersView(transport: Transport, options: ViewOptions): Promise<CommandOutput> {
  const { gathered, shards, shardCount } = await gatherWithShards(transport, 'clusters', {}, options);
  const failure = noAnswer(gathered, options);
  if (failure) throw failure;
  const warnings = partialWarnings(gathered, options.timeoutMs);
  // A cluster in a shard no answering node holds (its node killed a moment ago, or the shard
  // moving) is shown as an answering node's store last had it, as `hosts` shows hosts.
  const stored = await storedClusters(transport, gathered, shards, shardCount, options);
  if (stored && stored.clusters.length > 0) {
    warnings.push(`warning: ${stored.clusters.length} MaasCluster(s) on shards no answering node holds are shown as ${stored.from}'s store last had them (NODE -, PHASE stored), not as driven now; their shards move to the live nodes within the lease time`);
  }
  // Said only when the store could not be asked: otherwise the shards' clusters are in the listing.
  const ownerless = stored ? [] : ownerlessShards(gathered, (v) => v.clusters.map((c) => c.shard), shards, shardCount);
  if (ownerless.length > 0) warnings.push(ownerlessWarning(ownerless, 'MaasClusters'));
  const rows = [
    ...gathered.replies.flatMap(({ node, value }) => value.clusters.map((c) => ({ ...c, node }))),
    ...(stored?.clusters ?? []).map((c) => ({ ...c, node: '-' })),
  ].sort((a, b) => a.key.localeCompare(b.key) || a.node.localeCompare(b.node));
  const table = (): string[] => (rows.length === 0
    ? ['no MaasClusters']
    : [...renderTable(clusterColumns(), rows, { width: options.width }), ...rows.flatMap((c) => clusterDetail(c, options.width))]);
  return output(stored ? { ...gathered, stored } : gathered, table, options, warnings);
}
