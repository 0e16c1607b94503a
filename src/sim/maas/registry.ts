/** Zones, resource pools or DNS domains: names that exist, each with the id MAAS would give it. */
export class NameRegistry {
  private readonly ids = new Map<string, number>();

  constructor(private nextId: number) {}

  add(name: string): number {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    const id = this.nextId++;
    this.ids.set(name, id);
    return id;
  }

  has(name: string): boolean {
    return this.ids.has(name);
  }

  id(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  /** By name, or by id when the text is all digits (as MAAS resolves a domain parameter). */
  resolve(text: string): string | undefined {
    if (/^\d+$/.test(text)) {
      const id = Number(text);
      for (const [name, known] of this.ids) if (known === id) return name;
      return undefined;
    }
    return this.ids.has(text) ? text : undefined;
  }

  names(): string[] {
    return [...this.ids.keys()];
  }

  nameSet(): ReadonlySet<string> {
    return new Set(this.ids.keys());
  }
}
