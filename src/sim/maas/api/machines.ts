import type { Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import { machineJson } from '../machine-json.ts';

export const MACHINE_RESOURCES: readonly Resource[] = [
  {
    name: 'machines/',
    pattern: /^machines\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.fleet.list(c.params).map((m) => machineJson(m, b.places))),
      'POST allocate': (b, c) => ok(machineJson(b.fleet.allocate(c.user, c.params), b.places)),
    },
  },
  {
    name: 'machines/{id}/',
    pattern: /^machines\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(machineJson(b.fleet.get(c.id), b.places)),
      'PUT ': (b, c) => ok(machineJson(b.fleet.update(c.user, c.id, c.params), b.places)),
      'DELETE ': (b, c) => {
        b.fleet.remove(c.user, c.id);
        return noContent;
      },
      'POST deploy': (b, c) => ok(machineJson(b.fleet.deploy(c.user, c.id, c.params), b.places)),
      'POST release': (b, c) => ok(machineJson(b.fleet.release(c.user, c.id, c.params), b.places)),
      'POST power_on': (b, c) => ok(machineJson(b.fleet.powerOn(c.user, c.id, c.params), b.places)),
      'POST power_off': (b, c) => ok(machineJson(b.fleet.powerOffByRequest(c.user, c.id, c.params), b.places)),
      'POST set_owner_data': (b, c) => ok(machineJson(b.fleet.setOwnerData(c.user, c.id, c.params), b.places)),
    },
  },
];
