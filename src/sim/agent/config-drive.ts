// The config drive Ironic hands the agent (write_image's `configdrive`): a gzipped, base64
// ISO 9660 image labelled config-2 (Ironic builds one from a JSON configdrive), or a URL to such
// an image. Its openstack/latest files are parsed so tests can assert what the instance would see.
import { gunzipSync } from 'node:zlib';
import { readIso } from './iso9660.ts';

export interface ConfigDrive {
  readonly source: 'iso' | 'url' | 'json';
  /** Where it was fetched from, for source "url". */
  readonly url: string | null;
  /** The ISO image itself (decompressed), when there was one. */
  readonly iso: Buffer | null;
  /** Every file in the image by path, e.g. "openstack/latest/meta_data.json". */
  readonly files: ReadonlyMap<string, Buffer>;
  readonly metaData: Record<string, unknown> | null;
  readonly userData: string | null;
  readonly networkData: unknown;
  readonly vendorData: unknown;
}

const LATEST = 'openstack/latest/';

function json(buf: Buffer | undefined): unknown {
  if (buf === undefined) return null;
  try {
    return JSON.parse(buf.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

function fromFiles(source: ConfigDrive['source'], url: string | null, iso: Buffer | null, files: Map<string, Buffer>): ConfigDrive {
  const meta = json(files.get(`${LATEST}meta_data.json`));
  return {
    source,
    url,
    iso,
    files,
    metaData: meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : null,
    userData: files.get(`${LATEST}user_data`)?.toString('utf8') ?? null,
    networkData: json(files.get(`${LATEST}network_data.json`)),
    vendorData: json(files.get(`${LATEST}vendor_data.json`)),
  };
}

/** A gzipped ISO, a plain ISO, or (older Ironic) an uncompressed one: whichever the bytes are. */
function isoFromBytes(bytes: Buffer): Buffer {
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

export function parseConfigDriveIso(bytes: Buffer, source: 'iso' | 'url' = 'iso', url: string | null = null): ConfigDrive {
  const iso = isoFromBytes(bytes);
  return fromFiles(source, url, iso, readIso(iso));
}

/** Decode what Ironic sent; a URL is fetched with `fetchBytes`. */
export async function decodeConfigDrive(value: unknown, fetchBytes: (url: string) => Promise<Buffer>): Promise<ConfigDrive> {
  if (typeof value === 'string') {
    if (/^https?:\/\//.test(value)) return parseConfigDriveIso(await fetchBytes(value), 'url', value);
    return parseConfigDriveIso(Buffer.from(value, 'base64'));
  }
  if (value !== null && typeof value === 'object') {
    // Not what Ironic 21.4 sends (it builds the ISO itself), kept for callers that drive the agent directly.
    const v = value as Record<string, unknown>;
    const files = new Map<string, Buffer>();
    if (v['meta_data'] !== undefined) files.set(`${LATEST}meta_data.json`, Buffer.from(JSON.stringify(v['meta_data'])));
    if (typeof v['user_data'] === 'string') files.set(`${LATEST}user_data`, Buffer.from(v['user_data']));
    if (v['network_data'] !== undefined) files.set(`${LATEST}network_data.json`, Buffer.from(JSON.stringify(v['network_data'])));
    if (v['vendor_data'] !== undefined) files.set(`${LATEST}vendor_data.json`, Buffer.from(JSON.stringify(v['vendor_data'])));
    return fromFiles('json', null, null, files);
  }
  throw new Error(`config drive: expected a base64 gzipped ISO, a URL or an object, got ${typeof value}`);
}
