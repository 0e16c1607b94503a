import type { Candidate } from './candidate.ts';
import type { SimNic } from './hardware.ts';
import type { InterfaceConstraints, StorageConstraint } from './labeled-constraints.ts';

// Which of a machine's disks and NICs satisfy the labelled allocate constraints; what allocate
// returns in constraints_by_type (storage: label → block device ids or "partition:<id>",
// interfaces: label → interface ids).

export type StorageMatch = Map<number | string, string>;

const hasTags = (have: readonly string[], want: readonly string[] | undefined) => (want ?? []).every((t) => have.includes(t));

/** nodes_by_storage for one machine: device key → label, or undefined when a constraint finds no device. */
export function matchStorage(m: Candidate, constraints: readonly StorageConstraint[]): StorageMatch | undefined {
  const used = new Set<number | string>();
  const found: StorageMatch = new Map();
  constraints.forEach((c, i) => {
    if (found.size < i) return;
    const partition = c.tags?.includes('partition') ?? false;
    const tags = c.tags?.filter((t) => t !== 'partition');
    let key: number | string | undefined;
    if (i === 0) {
      // The first constraint is the disk (or partition) holding '/'.
      const root = m.disks.find((d) => d.partitionId !== undefined);
      // Partitions carry no tags in the simulator, so a tagged partition constraint finds none.
      if (root && partition && (tags ?? []).length === 0 && root.sizeBytes >= c.bytes) key = `partition:${root.partitionId}`;
      if (root && !partition && root.sizeBytes >= c.bytes && hasTags(root.tags, tags)) key = root.id;
    } else if (!partition) {
      // Any other unused disk, the smallest that fits; the only partition there is holds '/'.
      const fits = m.disks.filter((d) => d.partitionId === undefined && !used.has(d.id) && d.sizeBytes >= c.bytes && hasTags(d.tags, tags));
      key = fits.sort((a, b) => a.sizeBytes - b.sizeBytes)[0]?.id;
    }
    if (key === undefined) return;
    used.add(key);
    found.set(key, c.label);
  });
  return found.size === constraints.length ? found : undefined;
}

/** The storage part of constraints_by_type: named constraints only, label → matched device keys. */
export function storageByLabel(match: StorageMatch): Record<string, Array<number | string>> {
  const out: Record<string, Array<number | string>> = {};
  for (const [key, label] of match) if (label !== '') (out[label] ??= []).push(key);
  return out;
}

/** Where a machine's NICs sit in the network: its zone's VLAN. */
export interface NicPlace {
  readonly space?: string | undefined;
  readonly fabric?: string | undefined;
  readonly vid?: number | undefined;
}

function nicFacts(m: Candidate, nic: SimNic, place: NicPlace | undefined): Record<string, (v: string) => boolean> {
  return {
    id: (v) => String(nic.id) === v,
    name: (v) => nic.name === v,
    type: (v) => v === 'physical',
    tag: (v) => nic.tags.includes(v),
    hostname: (v) => m.hostname === v,
    space: (v) => place?.space === v,
    fabric: (v) => place?.fabric === v,
    vid: (v) => place?.vid !== undefined && String(place.vid) === v,
    link_speed: (v) => nic.linkSpeed >= Number(v),
    // Only the boot NIC is configured ('auto'); the others are merely up.
    mode: (v) => v === 'unconfigured' && nic !== m.nics[0],
  };
}

/** get_matching_node_map per label: label → matching interface ids, or undefined when a label matches none. */
export function matchInterfaces(m: Candidate, constraints: InterfaceConstraints, place: NicPlace | undefined): Record<string, number[]> | undefined {
  const out: Record<string, number[]> = {};
  for (const [label, pairs] of constraints) {
    const ids = m.nics
      .filter((nic) => {
        const facts = nicFacts(m, nic, place);
        return [...pairs].every(([key, values]) => {
          const negated = key.startsWith('not_');
          // Keys about things the simulator does not model (subnets, vlans, ips) match nothing.
          const test = facts[negated ? key.slice(4) : key] ?? (() => false);
          return negated ? !values.some(test) : values.some(test);
        });
      })
      .map((nic) => nic.id);
    if (ids.length === 0) return undefined;
    out[label] = ids;
  }
  return out;
}
