/** What MAAS keeps for a zone, a resource pool or a DNS domain besides its name. */
export interface PlaceEntry {
  readonly id: number;
  name: string;
  /** undefined until someone sets it: the default pool then shows MAAS's "Default pool". */
  description: string | undefined;
  /** Domains only: the default TTL (null = the global one) and whether MAAS serves the zone. */
  ttl: number | null;
  authoritative: boolean;
}

/** Zones, resource pools or DNS domains: names that exist, each with the id MAAS would give it. */
export class NameRegistry {
  private readonly entries = new Map<string, PlaceEntry>();
  // The row MAAS protects from deletion: the one first added as 'default' (zones, pools).
  private defaultId: number | undefined;

  constructor(private nextId: number) {}

  add(name: string): number {
    const known = this.entries.get(name);
    if (known !== undefined) return known.id;
    const id = this.nextId++;
    this.entries.set(name, { id, name, description: undefined, ttl: null, authoritative: true });
    if (name === 'default' && this.defaultId === undefined) this.defaultId = id;
    return id;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  id(name: string): number {
    return this.entries.get(name)?.id ?? -1;
  }

  entry(name: string): PlaceEntry | undefined {
    return this.entries.get(name);
  }

  /** By name, or by id when the text is all digits (as MAAS resolves a domain parameter). */
  resolve(text: string): string | undefined {
    if (/^\d+$/.test(text)) {
      const id = Number(text);
      for (const e of this.entries.values()) if (e.id === id) return e.name;
      return undefined;
    }
    return this.entries.has(text) ? text : undefined;
  }

  /** The name of the entry first added as 'default', if it still exists (it may be renamed). */
  defaultName(): string | undefined {
    for (const e of this.entries.values()) if (e.id === this.defaultId) return e.name;
    return undefined;
  }

  rename(from: string, to: string): void {
    const e = this.entries.get(from);
    if (e === undefined || from === to) return;
    this.entries.delete(from);
    e.name = to;
    this.entries.set(to, e);
  }

  remove(name: string): void {
    this.entries.delete(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  nameSet(): ReadonlySet<string> {
    return new Set(this.entries.keys());
  }
}
