import type { NicPlace } from './constraint-match.ts';
import type { SimDisk, SimNic } from './hardware.ts';

/** What allocation constraints and list filters look at on a machine. */
export interface Candidate {
  readonly systemId: string;
  readonly hostname: string;
  readonly domain: string;
  readonly zone: string;
  readonly pool: string;
  readonly tags: readonly string[];
  readonly architecture: string;
  readonly cpuCount: number;
  readonly cpuSpeed: number;
  readonly memory: number;
  readonly powerType: string;
  readonly disks: readonly SimDisk[];
  readonly nics: readonly SimNic[];
}

/** The names that exist: a zone, pool or tag outside these is a 400, not an empty match. */
export interface Catalog {
  readonly zones: ReadonlySet<string>;
  readonly pools: ReadonlySet<string>;
  readonly tags: ReadonlySet<string>;
  /** Architectures with boot images: every machine's, and amd64/generic. */
  readonly architectures: ReadonlySet<string>;
  /** Where a machine's NICs are (its zone's VLAN), for `interfaces=label:space=...`. */
  readonly placeOf: (m: Candidate) => NicPlace | undefined;
  /** Subnet specifiers to subnet ids, undefined for a malformed one; absent where no network is at hand. */
  readonly subnetIds?: (specs: readonly string[]) => ReadonlySet<number> | undefined;
  /** The subnets a machine's interfaces have links (addresses, AUTO or not) on. */
  readonly linkedSubnets?: (m: Candidate) => ReadonlySet<number>;
}

// Support the old way of passing several tags in one value, comma or space separated
// (parse_legacy_tags in node_constraint_filter_forms.py).
export function splitTags(values: readonly string[]): string[] {
  return values.flatMap((v) => v.match(/[^\s,]+/g) ?? []);
}

export function unknownTagsMessage(tags: ReadonlySet<string>, catalog: Catalog): string | undefined {
  const unknown = [...tags].filter((t) => !catalog.tags.has(t)).sort();
  return unknown.length === 0 ? undefined : `No such tag(s): ${unknown.map((t) => `'${t}'`).join(', ')}.`;
}

export function unknownNamesMessage(kind: 'zone' | 'pool', names: readonly string[], known: ReadonlySet<string>): string | undefined {
  const unknown = [...new Set(names.filter((n) => !known.has(n)))].sort();
  return unknown.length === 0 ? undefined : `No such ${kind}(s): ${unknown.join(', ')}.`;
}
