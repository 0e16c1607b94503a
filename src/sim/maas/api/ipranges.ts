import type { Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';

// ipranges/ and ipranges/{id}/ (IPRangesHandler, IPRangeHandler): the ranges themselves live in
// network/ip-ranges.ts; delete answers 204 (piston's rc.DELETED).

export const IP_RANGE_RESOURCES: readonly Resource[] = [
  {
    name: 'ipranges/',
    pattern: /^ipranges\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(b.ranges.list()),
      'POST ': (b, c) => ok(b.ranges.create(c.user, c.params)),
    },
  },
  {
    name: 'ipranges/{id}/',
    pattern: /^ipranges\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.ranges.read(c.id)),
      'PUT ': (b, c) => ok(b.ranges.update(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.ranges.remove(c.user, c.id);
        return noContent;
      },
    },
  },
];
