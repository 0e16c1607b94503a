import { badRequest, forbidden, METHOD_RESERVED_ADMIN, notFound } from '../http/api-error.ts';
import type { Backend, Resource } from '../backend.ts';
import { ok } from '../backend.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';

// boot-resources/: the images MAAS can deploy (api/boot_resources.py boot_resource_to_dict),
// from the fleet's catalog (fleet/boot-images.ts): synced Ubuntu LTS images per architecture and
// kernel, and the custom images the simulator was seeded with. juju reads it to learn the
// architectures it may ask for (getSupportedArchitectures splits architecture on '/').

function bootResources(b: Backend) {
  return b.fleet.images.list().map((r) => ({
    id: r.id, type: r.type, name: r.name, architecture: r.architecture, resource_uri: `${API_PREFIX}/boot-resources/${r.id}/`, last_deployed: null,
    // resource.extra: subarches and title; base_image for a custom image built on one.
    subarches: r.subarches, title: r.title, ...(r.baseImage ? { base_image: r.baseImage } : {}),
  }));
}

const text = (body: string) => ({ status: 200 as const, text: body, contentType: 'text/plain; charset=utf-8' });

export const BOOT_RESOURCE_RESOURCES: readonly Resource[] = [
  {
    name: 'boot-resources/',
    pattern: /^boot-resources\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => {
        const type = c.params.get('type') ?? 'all';
        if (!['all', 'synced', 'uploaded'].includes(type)) throw badRequest(`'${type}' is not a valid boot resource type. Available types: ['synced', 'uploaded']`);
        const all = bootResources(b);
        return ok(type === 'all' ? all : all.filter((r) => r.type === (type === 'synced' ? 'Synced' : 'Uploaded')));
      },
      'GET is_importing': () => ok(false),
      'POST import': (_b, c) => {
        if (!c.user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
        return text('Import of boot resources started');
      },
      'POST stop_import': (_b, c) => {
        if (!c.user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
        return text('Import of boot resources is being stopped');
      },
    },
  },
  {
    name: 'boot-resources/{id}/',
    pattern: /^boot-resources\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => {
        const found = bootResources(b).find((r) => String(r.id) === c.id);
        if (!found) throw notFound('BootResource');
        return ok({ ...found, sets: {} });
      },
    },
  },
];
