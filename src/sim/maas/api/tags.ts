import type { Backend, CallContext, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import { machineJson } from '../fleet/machine-json.ts';
import type { Tagged } from '../places/tags.ts';

// tags/ and tags/{name}/ (TagsHandler, TagHandler in api/tags.py).

function tagged(b: Backend): Tagged[] {
  return [...b.fleet.all(), ...b.network.devices.all()];
}

const machinesWith = (b: Backend, tag: string) => b.fleet.all().filter((m) => m.tags.includes(tag)).map((m) => machineJson(m, b));

// The tag must exist; the simulator has no controllers to carry it.
const noControllers = (b: Backend, c: CallContext) => {
  b.tags.check(c.id);
  return ok([]);
};

export const TAG_RESOURCES: readonly Resource[] = [
  {
    name: 'tags/',
    pattern: /^tags\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.tags.list()),
      'POST ': (b, c) => ok(b.tags.create(c.user, c.params)),
    },
  },
  {
    name: 'tags/{name}/',
    pattern: /^tags\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.tags.read(c.id)),
      'PUT ': (b, c) => ok(b.tags.update(c.user, c.id, c.params, tagged(b))),
      'DELETE ': (b, c) => {
        b.tags.remove(c.user, c.id, tagged(b));
        return noContent;
      },
      'GET machines': (b, c) => ok(machinesWith(b, b.tags.check(c.id))),
      'GET devices': (b, c) => ok(b.network.devices.list(c.user, c.params).filter((d) => d.tag_names.includes(b.tags.check(c.id)))),
      // Machines, then devices; the simulator has no controllers to tag.
      'GET nodes': (b, c) => {
        const tag = b.tags.check(c.id);
        return ok([...machinesWith(b, tag), ...b.network.devices.list(c.user, c.params).filter((d) => d.tag_names.includes(tag))]);
      },
      'GET rack_controllers': noControllers,
      'GET region_controllers': noControllers,
      'POST rebuild': (b, c) => ok(b.tags.rebuild(c.user, c.id)),
      'POST update_nodes': (b, c) => ok(b.tags.updateNodes(c.user, c.id, c.params, (id) => b.fleet.bySystemId(id) ?? b.network.devices.all().find((d) => d.systemId === id))),
    },
  },
];
