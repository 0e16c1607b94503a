// /healthz, /livez and /readyz as k8s.io/apiserver's healthz handlers answer them: plain `ok`, each
// check under its own path, and with `?verbose` the checks one per line. Scripts poll
// `kubectl get --raw /readyz` before they start.
import type { ServerResponse } from 'node:http';
import { queryFlag } from './routes.ts';

const ENDPOINTS = new Set(['healthz', 'livez', 'readyz']);
const CHECKS = ['ping', 'log', 'etcd'];

/** Answers a health path and returns true, or returns false for any other path. */
export function serveHealth(url: URL, res: ServerResponse): boolean {
  const [endpoint, check, ...more] = url.pathname.split('/').filter((p) => p !== '');
  if (endpoint === undefined || !ENDPOINTS.has(endpoint) || more.length > 0 || (check !== undefined && !CHECKS.includes(check))) return false;
  const body = check === undefined && queryFlag(url.searchParams.get('verbose'))
    ? `${CHECKS.map((c) => `[+]${c} ok`).join('\n')}\n${endpoint} check passed\n`
    : 'ok';
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
  return true;
}
