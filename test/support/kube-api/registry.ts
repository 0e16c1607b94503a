// The resources the server knows, and lookups by URL parts, by apiVersion+kind, or by the short
// names tests use (`BareMetalHost`, `baremetalhosts`, `baremetalhosts.metal3.io`).
import { CrdLoadError } from './crd.ts';
import { groupVersion, qualifiedResource } from './types.ts';
import type { ResourceDef, VersionDef } from './types.ts';

export class Registry {
  private readonly resources: ResourceDef[] = [];

  constructor(resources: readonly ResourceDef[]) {
    for (const res of resources) {
      if (this.resources.some((r) => qualifiedResource(r) === qualifiedResource(res))) {
        throw new CrdLoadError(`${qualifiedResource(res)} is defined twice`);
      }
      this.resources.push(res);
    }
  }

  /** Adds or replaces (by plural.group) a resource: CRDs come and go while the server runs. */
  set(res: ResourceDef): void {
    const i = this.resources.findIndex((r) => qualifiedResource(r) === qualifiedResource(res));
    if (i >= 0) this.resources[i] = res;
    else this.resources.push(res);
  }

  remove(qualified: string): void {
    const i = this.resources.findIndex((r) => qualifiedResource(r) === qualified && r.builtin === undefined);
    if (i >= 0) this.resources.splice(i, 1);
  }

  all(): readonly ResourceDef[] {
    return this.resources;
  }

  find(group: string, version: string, plural: string): { res: ResourceDef; version: VersionDef } | undefined {
    for (const res of this.resources) {
      if (res.group !== group || res.plural !== plural) continue;
      const v = res.versions.find((x) => x.name === version);
      if (v) return { res, version: v };
    }
    return undefined;
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.resources.some((r) => r.group === group && r.versions.some((v) => v.name === version));
  }

  byApiVersionKind(apiVersion: string, kind: string): { res: ResourceDef; version: VersionDef } | undefined {
    for (const res of this.resources) {
      if (res.kind !== kind) continue;
      const v = res.versions.find((x) => groupVersion(res, x.name) === apiVersion);
      if (v) return { res, version: v };
    }
    return undefined;
  }

  /** By Kind, plural, singular or `plural.group`; throws for an unknown or ambiguous name. */
  resolve(name: string): { res: ResourceDef; version: VersionDef } {
    const matches = this.resources.filter((r) => [r.kind, r.plural, r.singular, qualifiedResource(r)].includes(name));
    if (matches.length !== 1) {
      const known = this.resources.map(qualifiedResource).join(', ');
      throw new Error(matches.length === 0 ? `kube-api: no resource "${name}" (known: ${known})` : `kube-api: "${name}" is ambiguous; use plural.group`);
    }
    const res = matches[0] as ResourceDef;
    return { res, version: (res.versions.find((v) => v.storage) ?? res.versions[0]) as VersionDef };
  }
}
