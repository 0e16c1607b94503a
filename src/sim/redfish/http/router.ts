import type { Resource } from './context.ts';
import { RedfishError } from './errors.ts';

export interface Match {
  resource: Resource;
  params: Record<string, string>;
}

interface Compiled {
  resource: Resource;
  regex: RegExp;
  names: string[];
}

export const METHODS = ['GET', 'PATCH', 'POST', 'DELETE'] as const;

/** The methods a resource answers, for 405's Allow header. */
export function allowed(r: Resource): string[] {
  const has = { GET: r.get ?? r.getReply, PATCH: r.patch, POST: r.post, DELETE: r.delete };
  return METHODS.filter((m) => has[m] !== undefined);
}

/**
 * A path segment, percent-decoded. One that is not percent-encoded UTF-8 (`%E0%A4`, a lone `%FF`)
 * names nothing: 400 naming it, as a malformed request, not the URIError's 500, on which sushy
 * retries a GET ten times, three seconds apart.
 */
function decodeSegment(path: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RedfishError(400, 'InvalidURI', `The URI ${path} is not valid: its segment ${raw} is not percent-encoded UTF-8.`, 'Percent-encode the URI as UTF-8 (RFC 3986) and resubmit the request.');
  }
}

export function compileRoutes(resources: readonly Resource[]): (path: string) => Match | undefined {
  const compiled: Compiled[] = resources.map((resource) => {
    const names: string[] = [];
    const source = resource.pattern.split('/').map((seg) => {
      if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(seg.slice(1));
      return '([^/]+)';
    }).join('/');
    return { resource, regex: new RegExp(`^${source}$`), names };
  });
  return (path) => {
    for (const c of compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      c.names.forEach((name, i) => (params[name] = decodeSegment(path, m[i + 1] ?? '')));
      return { resource: c.resource, params };
    }
    return undefined;
  };
}
