import { registryBody } from '../model/bios-registry.ts';
import type { BiosRegistry } from '../model/bios-registry.ts';
import { notFound } from '../http/errors.ts';
import type { Ctx, Resource } from '../http/context.ts';
import { collection, odata } from '../http/odata.ts';

// /redfish/v1/Registries: a MessageRegistryFile per BIOS attribute registry, whose Location Uri
// holds the registry itself, where sushy looks (sushy/main.py registries, message_registry_file.py).
// A caller sees the registries of its own systems' models, as one BMC lists only its own.
export const REGISTRIES = '/redfish/v1/Registries';

/** Where a registry file's English copy is served. */
export const registryUri = (id: string) => `${REGISTRIES}/${id}/en`;

function visible(ctx: Ctx): BiosRegistry[] {
  const out = new Map<string, BiosRegistry>();
  for (const id of ctx.principal.systemIds) {
    const r = ctx.world.systems.get(id)?.model.registry;
    if (r) out.set(r.id, r);
  }
  return [...out.values()];
}

function named(ctx: Ctx): BiosRegistry {
  const r = visible(ctx).find((x) => x.id === ctx.params.id);
  if (!r) throw notFound(ctx.path);
  return r;
}

export const registryResources: Resource[] = [
  {
    pattern: REGISTRIES,
    get: (ctx) => collection(REGISTRIES, '#MessageRegistryFileCollection.MessageRegistryFileCollection', 'Registry File Collection', visible(ctx).map((r) => `${REGISTRIES}/${r.id}`)),
  },
  {
    pattern: `${REGISTRIES}/:id`,
    get: (ctx) => {
      const r = named(ctx);
      return {
        ...odata(`${REGISTRIES}/${r.id}`, '#MessageRegistryFile.v1_1_3.MessageRegistryFile'),
        Id: r.id, Name: `${r.model} BIOS Attribute Registry File`, Description: `BIOS attribute registry of the ${r.vendor} ${r.model}`,
        Languages: ['en'], Registry: r.registry,
        Location: [{ Language: 'en', Uri: registryUri(r.id) }],
      };
    },
  },
  { pattern: `${REGISTRIES}/:id/en`, get: (ctx) => registryBody(named(ctx), registryUri(named(ctx).id)) },
];
