import type { Microversion } from './versions.ts';
import { MIN_VERSION, text } from './versions.ts';

// GET / and GET /v1: ironic/api/controllers/root.py root() and v1/__init__.py v1(), with
// version.py default_version(); the shapes Ironic 21.4 answered (seen).

function versionEntry(base: string, max: Microversion): Record<string, unknown> {
  return { id: 'v1', links: [{ href: `${base}/v1/`, rel: 'self' }], status: 'CURRENT', min_version: text(MIN_VERSION), version: text(max) };
}

export function rootDocument(base: string, max: Microversion): Record<string, unknown> {
  return {
    name: 'OpenStack Ironic API',
    description: 'Ironic is an OpenStack project which enables the provision and management of baremetal machines.',
    default_version: versionEntry(base, max),
    versions: [versionEntry(base, max)],
  };
}

export function v1Document(base: string, max: Microversion): Record<string, unknown> {
  const links = (name: string): unknown[] => [{ href: `${base}/v1/${name}/`, rel: 'self' }, { href: `${base}/${name}/`, rel: 'bookmark' }];
  return {
    id: 'v1',
    links: [{ href: `${base}/v1/`, rel: 'self' }, { href: 'https://docs.openstack.org//ironic/latest/contributor//webapi.html', rel: 'describedby', type: 'text/html' }],
    media_types: { base: 'application/json', type: 'application/vnd.openstack.ironic.v1+json' },
    chassis: links('chassis'),
    nodes: links('nodes'),
    ports: links('ports'),
    drivers: links('drivers'),
    version: versionEntry(base, max),
  };
}
