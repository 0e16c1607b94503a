import type { Resource } from '../backend.ts';
import { ok } from '../backend.ts';

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
      'POST update_nodes': (b, c) => ok(b.tags.updateNodes(c.user, c.id, c.params, (id) => b.fleet.bySystemId(id))),
    },
  },
];
