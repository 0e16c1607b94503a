import type { Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';

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
];
