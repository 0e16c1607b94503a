import type { Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';

// dnsresources/ (names with addresses) and dnsresourcerecords/ (their other records).

export const DNS_RESOURCES: readonly Resource[] = [
  {
    name: 'dnsresources/',
    pattern: /^dnsresources\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.dns.list(c.params)),
      'POST ': (b, c) => ok(b.dns.create(c.user, c.params)),
    },
  },
  {
    name: 'dnsresources/{id}/',
    pattern: /^dnsresources\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.dns.read(c.id)),
      'PUT ': (b, c) => ok(b.dns.update(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.dns.remove(c.user, c.id);
        return noContent;
      },
    },
  },
  {
    name: 'dnsresourcerecords/',
    pattern: /^dnsresourcerecords\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.dns.listData(c.params)),
      'POST ': (b, c) => ok(b.dns.createData(c.user, c.params)),
    },
  },
  {
    name: 'dnsresourcerecords/{id}/',
    pattern: /^dnsresourcerecords\/([^/]+)\/(?:op-([^/]+))?$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => ok(b.dns.readData(c.id)),
      'PUT ': (b, c) => ok(b.dns.updateData(c.user, c.id, c.params)),
      'DELETE ': (b, c) => {
        b.dns.removeData(c.user, c.id);
        return noContent;
      },
    },
  },
];
