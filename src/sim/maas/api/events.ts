import type { Resource } from '../backend.ts';
import { ok } from '../backend.ts';
import { queryEvents } from '../fleet/events-query.ts';

// events/?op=query: the node filters pick the machines (filtered_nodes_list_from_request), then
// level, owner, limit and before/after pick their events.
export const EVENT_RESOURCES: readonly Resource[] = [
  {
    name: 'events/',
    pattern: /^events\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET query': (b, c) => ok(queryEvents(b.events.all(), new Set(b.fleet.eventNodes(c.params).map((m) => m.systemId)), c.params)),
    },
  },
];
