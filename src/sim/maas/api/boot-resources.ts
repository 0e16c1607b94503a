import { badRequest, forbidden, METHOD_RESERVED_ADMIN, notFound } from '../http/api-error.ts';
import type { Backend, Resource } from '../backend.ts';
import { ok } from '../backend.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';

// boot-resources/: the images MAAS can deploy. juju reads it to learn the architectures it may
// ask for (getSupportedArchitectures splits architecture on '/'). The simulator has no image
// store: it shows one Synced Ubuntu image per LTS release for every architecture in its fleet.

const SERIES = ['focal', 'jammy', 'noble'] as const;

interface BootResourceJson {
  id: number;
  type: 'Synced';
  name: string;
  architecture: string;
  resource_uri: string;
  subarches: string;
}

function bootResources(b: Backend): BootResourceJson[] {
  const architectures = [...new Set(['amd64/generic', ...b.fleet.all().map((m) => m.architecture)])].sort();
  let id = 0;
  return SERIES.flatMap((series) =>
    architectures.map((architecture) => {
      id++;
      return { id, type: 'Synced' as const, name: `ubuntu/${series}`, architecture, resource_uri: `${API_PREFIX}/boot-resources/${id}/`, subarches: 'generic' };
    }),
  );
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
        // Every image here is synced: the uploaded ones are none.
        return ok(type === 'uploaded' ? [] : bootResources(b));
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
        return ok({ ...found, last_deployed: null, sets: {} });
      },
    },
  },
];
