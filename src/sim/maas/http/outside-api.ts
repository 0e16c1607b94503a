import { TEXT_PLAIN } from './api-error.ts';
import type { Resource } from '../backend.ts';
import { describeApi } from './describe.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';

// Answers for paths no API resource serves, as MAAS's URL table (maasserver/urls.py, urls_api.py)
// and Django's CommonMiddleware give them.

export interface PlainAnswer {
  readonly status: number;
  readonly text: string;
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
}

// Unslashed paths whose slashed form Django resolves outside the versioned API: APPEND_SLASH
// redirects those (301, relative Location, query kept). Under /MAAS/api/2.0/ it never fires,
// because urls_api.py ends in a catch-all that makes every path resolve.
const SLASHED_ROOTS = ['/MAAS/api/2.0', '/MAAS/api/version'];

export function outsideApi(pathname: string, search: string, siteUrl: string, resources: readonly Resource[]): PlainAnswer {
  // describe/ is a plain view in MAAS, not a resource: anonymous, and not in its own listing.
  if (pathname === `${API_PREFIX}/describe/`) return { status: 200, text: JSON.stringify(describeApi(resources, siteUrl)), contentType: 'application/json' };
  if (pathname.startsWith(`${API_PREFIX}/`)) return { status: 404, text: `Unknown API endpoint: ${pathname}.`, contentType: TEXT_PLAIN };
  if (SLASHED_ROOTS.includes(pathname)) return { status: 301, text: '', contentType: 'text/html; charset=utf-8', headers: { Location: `${pathname}/${search}` } };
  if (pathname.startsWith('/MAAS/api/version/')) return { status: 200, text: '2.0', contentType: 'text/plain' };
  if (pathname.startsWith('/MAAS/api/1.0/')) return { status: 410, text: 'The 1.0 API is no longer available. Please use API version 2.0.', contentType: 'text/plain' };
  return { status: 404, text: 'Not Found', contentType: TEXT_PLAIN };
}
