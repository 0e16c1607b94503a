// A plain HTTP file server for simulated deploys: images by name with their checksums published
// beside them (<name>.sha256sum, <name>.md5sum, SHA256SUMS), and optionally a folder (Ironic's
// http_root, for iPXE or virtual media files). Ironic HEADs an image URL before deploying and its
// image cache compares Last-Modified with its cached copy, so each image has its own date, moved
// when it is replaced. Single byte ranges and conditional GETs are answered as web servers do.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import { resolve, sep } from 'node:path';
import { listen } from './http.ts';
import { requestUrl } from '../request-target.ts';

export interface ImageServerOptions {
  /** File name (no slashes) → contents. */
  images?: Record<string, Buffer | string>;
  /** A folder served for every path that is not an image or checksum file. */
  dir?: string;
  /** Ask for HTTP basic auth on every request (clients put it in the URL: http://user:pass@host/…). */
  basicAuth?: { readonly user: string; readonly password: string };
  /** The time images are dated with (Last-Modified), when started and when replaced; default the wall clock. */
  clock?: () => Date;
}

export interface ServedRequest { readonly method: string; readonly path: string; readonly status: number }

export interface ImageServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  urlOf(name: string): string;
  /** The hex digest of an image (md5, sha256, sha512, ...). */
  checksum(name: string, algorithm?: string): string;
  /** URL of the published "<hash>  <name>" file for the algorithm. */
  checksumUrlOf(name: string, algorithm?: 'sha256' | 'md5' | 'sha512'): string;
  /** Add or replace an image while running; its Last-Modified becomes now. */
  put(name: string, contents: Buffer | string): void;
  /** Every request answered, in order (so a test can count image downloads). */
  readonly requests: readonly ServedRequest[];
  stop(): Promise<void>;
}

const SUMS = /^(.+)\.(sha256|md5|sha512)sum$/;

interface Served { readonly data: Buffer; readonly modified: Date }

// HTTP dates have whole seconds: compare in seconds, or a date read back never equals its source.
const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

function parseDate(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** One "bytes=a-b" range of a body `size` long: the span, 'unsatisfiable', or null to send it all (none, several, or not understood). */
function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  return start >= size ? 'unsatisfiable' : { start, end };
}

export async function startImageServer(opts: ImageServerOptions = {}): Promise<ImageServer> {
  const clock = opts.clock ?? (() => new Date());
  const images = new Map<string, Served>(Object.entries(opts.images ?? {}).map(([k, v]) => [k, { data: Buffer.from(v), modified: clock() }]));
  const requests: ServedRequest[] = [];
  const sum = (name: string, algorithm = 'sha256'): string => {
    const img = images.get(name);
    if (img === undefined) throw new Error(`image server: no image named "${name}"`);
    return createHash(algorithm).update(img.data).digest('hex');
  };
  const expected = opts.basicAuth ? Buffer.from(`Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString('base64')}`) : null;
  const authorized = (header: string | undefined): boolean => {
    if (expected === null) return true;
    const given = Buffer.from(header ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  async function body(name: string): Promise<Served | null> {
    const img = images.get(name);
    if (img !== undefined) return img;
    const m = SUMS.exec(name);
    const of = m?.[1] !== undefined ? images.get(m[1]) : undefined;
    if (m?.[1] !== undefined && of !== undefined) return { data: Buffer.from(`${sum(m[1], m[2])}  ${m[1]}\n`), modified: of.modified };
    if (name === 'SHA256SUMS') {
      const all = [...images.values()].map((i) => i.modified.getTime());
      return { data: Buffer.from([...images.keys()].map((n) => `${sum(n)}  ${n}\n`).join('')), modified: new Date(Math.max(0, ...all)) };
    }
    if (opts.dir === undefined) return null;
    const root = resolve(opts.dir);
    const file = resolve(root, name);
    if (file !== root && !file.startsWith(root + sep)) return null;
    try {
      const st = await stat(file);
      return st.isFile() ? { data: await readFile(file), modified: st.mtime } : null;
    } catch {
      return null;
    }
  }

  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const target = requestUrl(req, res, 'http://x');
    if (target === null) return;
    const path = target.pathname;
    const answer = (status: number, data: Buffer | null, headers: Record<string, string | number> = {}): void => {
      requests.push({ method, path, status });
      res.writeHead(status, { 'Content-Type': 'application/octet-stream', 'Content-Length': data?.length ?? 0, ...headers });
      res.end(method === 'HEAD' ? undefined : data ?? undefined);
    };
    if (method !== 'GET' && method !== 'HEAD') return answer(405, null, { Allow: 'GET, HEAD' });
    if (!authorized(req.headers.authorization)) return answer(401, null, { 'WWW-Authenticate': 'Basic realm="images"' });
    let name: string;
    try {
      name = decodeURIComponent(path.replace(/^\/+/, ''));
    } catch {
      return answer(400, Buffer.from(`Bad Request: ${path} is not a valid percent-encoded path\n`), { 'Content-Type': 'text/plain' });
    }
    body(name).then((found) => {
      if (found === null) return answer(404, null);
      const { data, modified } = found;
      const headers = { 'Last-Modified': new Date(seconds(modified) * 1000).toUTCString(), 'Accept-Ranges': 'bytes' };
      const since = parseDate(req.headers['if-modified-since']);
      if (since !== null && seconds(modified) <= since) return answer(304, null, headers);
      // If-Range with a date older than the file: the client's part is stale, send it whole.
      const ifRange = req.headers['if-range'];
      const rangeValid = ifRange === undefined || (typeof ifRange === 'string' && parseDate(ifRange) === seconds(modified));
      const range = rangeValid ? byteRange(req.headers.range, data.length) : null;
      if (range === 'unsatisfiable') return answer(416, null, { ...headers, 'Content-Range': `bytes */${data.length}` });
      if (range !== null) return answer(206, data.subarray(range.start, range.end + 1), { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${data.length}` });
      answer(200, data, headers);
    }, () => answer(500, null));
  });
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    urlOf: (name) => `${url}/${encodeURIComponent(name)}`,
    checksum: sum,
    checksumUrlOf: (name, algorithm = 'sha256') => `${url}/${encodeURIComponent(name)}.${algorithm}sum`,
    put: (name, contents) => void images.set(name, { data: Buffer.from(contents), modified: clock() }),
    requests,
    stop: () => new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    }),
  };
}
