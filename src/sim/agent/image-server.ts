// A plain HTTP file server for simulated deploys: images by name with their checksums published
// beside them (<name>.sha256sum, <name>.md5sum, SHA256SUMS), and optionally a folder (Ironic's
// http_root, for iPXE or virtual media files). Ironic HEADs an image URL before deploying, so
// HEAD answers with the length and a Last-Modified date.
import { createHash } from 'node:crypto';
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
  /** Add or replace an image while running. */
  put(name: string, contents: Buffer | string): void;
  /** Every request answered, in order (so a test can count image downloads). */
  readonly requests: readonly ServedRequest[];
  stop(): Promise<void>;
}

const SUMS = /^(.+)\.(sha256|md5|sha512)sum$/;

export async function startImageServer(opts: ImageServerOptions = {}): Promise<ImageServer> {
  const images = new Map<string, Buffer>(Object.entries(opts.images ?? {}).map(([k, v]) => [k, Buffer.from(v)]));
  const started = new Date();
  const requests: ServedRequest[] = [];
  const sum = (name: string, algorithm = 'sha256'): string => {
    const img = images.get(name);
    if (img === undefined) throw new Error(`image server: no image named "${name}"`);
    return createHash(algorithm).update(img).digest('hex');
  };

  async function body(path: string): Promise<Buffer | null> {
    const name = decodeURIComponent(path.replace(/^\/+/, ''));
    const img = images.get(name);
    if (img !== undefined) return img;
    const m = SUMS.exec(name);
    if (m?.[1] !== undefined && images.has(m[1])) return Buffer.from(`${sum(m[1], m[2])}  ${m[1]}\n`);
    if (name === 'SHA256SUMS') return Buffer.from([...images.keys()].map((n) => `${sum(n)}  ${n}\n`).join(''));
    if (opts.dir === undefined) return null;
    const root = resolve(opts.dir);
    const file = resolve(root, name);
    if (file !== root && !file.startsWith(root + sep)) return null;
    try {
      return (await stat(file)).isFile() ? await readFile(file) : null;
    } catch {
      return null;
    }
  }

  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const target = requestUrl(req, res, 'http://x');
    if (target === null) return;
    const path = target.pathname;
    const answer = (status: number, data: Buffer | null): void => {
      requests.push({ method, path, status });
      res.writeHead(status, { 'Content-Type': 'application/octet-stream', 'Content-Length': data?.length ?? 0, 'Last-Modified': started.toUTCString() });
      res.end(method === 'HEAD' ? undefined : data ?? undefined);
    };
    if (method !== 'GET' && method !== 'HEAD') return answer(405, null);
    body(path).then((data) => answer(data === null ? 404 : 200, data), () => answer(500, null));
  });
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    urlOf: (name) => `${url}/${encodeURIComponent(name)}`,
    checksum: sum,
    checksumUrlOf: (name, algorithm = 'sha256') => `${url}/${encodeURIComponent(name)}.${algorithm}sum`,
    put: (name, contents) => void images.set(name, Buffer.from(contents)),
    requests,
    stop: () => new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    }),
  };
}
