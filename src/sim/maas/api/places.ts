import type { Backend, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import type { PlacedThings } from '../places/place-book.ts';
import * as book from '../places/place-book.ts';
import { domainJson, poolJson, zoneJson } from '../places/place-json.ts';

// zones/, resourcepools/ + resourcepool/{id}/ (MAAS's own asymmetric paths), domains/.

// Machines and devices both carry zone and domain names; machines also a pool.
function placed(b: Backend): PlacedThings {
  return {
    nodes: () => [...b.fleet.all(), ...b.network.devices.all()],
    renameDomain: (from, to) => b.dns.renameDomain(from, to),
    dropDomain: (name) => b.dns.dropDomain(name),
  };
}

const domain = (b: Backend, name: string) => domainJson(name, b.places, b.dns.countInDomain(name));

export const PLACE_RESOURCES: readonly Resource[] = [
  {
    name: 'zones/',
    pattern: /^zones\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(book.listZones(b.places).map((z) => zoneJson(z, b.places))),
      'POST ': (b, c) => ok(zoneJson(book.createZone(c.user, b.places, c.params), b.places)),
    },
  },
  {
    name: 'zones/{name}/',
    pattern: /^zones\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(zoneJson(book.findZone(b.places, c.id), b.places)),
      'PUT ': (b, c) => ok(zoneJson(book.updateZone(c.user, b.places, c.id, c.params, placed(b)), b.places)),
      'DELETE ': (b, c) => {
        book.deleteZone(c.user, b.places, c.id, placed(b));
        return noContent;
      },
    },
  },
  {
    name: 'resourcepools/',
    pattern: /^resourcepools\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(book.listPools(b.places).map((p) => poolJson(p, b.places))),
      'POST ': (b, c) => ok(poolJson(book.createPool(c.user, b.places, c.params), b.places)),
    },
  },
  {
    name: 'resourcepool/{id}/',
    pattern: /^resourcepool\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(poolJson(book.findPool(b.places, c.id), b.places)),
      'PUT ': (b, c) => ok(poolJson(book.updatePool(c.user, b.places, c.id, c.params, placed(b)), b.places)),
      'DELETE ': (b, c) => {
        book.deletePool(c.user, b.places, c.id, placed(b));
        return noContent;
      },
    },
  },
  {
    name: 'domains/',
    pattern: /^domains\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b) => ok(book.listDomains(b.places).map((d) => domain(b, d))),
      'POST ': (b, c) => ok(domain(b, book.createDomain(c.user, b.places, c.params))),
      'POST set_serial': (_b, c) => {
        book.setSerial(c.user, c.params);
        return ok(null);
      },
    },
  },
  {
    name: 'domains/{id}/',
    pattern: /^domains\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(domain(b, book.findDomain(b.places, c.id))),
      'PUT ': (b, c) => ok(domain(b, book.updateDomain(c.user, b.places, c.id, c.params, placed(b)))),
      'POST set_default': (b, c) => ok(domain(b, book.setDefaultDomain(c.user, b.places, c.id, placed(b)))),
      'DELETE ': (b, c) => {
        book.deleteDomain(c.user, b.places, c.id, placed(b));
        return noContent;
      },
    },
  },
];
