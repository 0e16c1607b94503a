// The config drive Ironic hands the agent (write_image's `configdrive`): a gzipped, base64
// ISO 9660 image labelled config-2 (Ironic builds one from a JSON configdrive), or a URL to such
// an image. Its openstack/latest files are parsed so tests can assert what the instance would see.
import { gunzipSync } from 'node:zlib';
import type { AgentError } from './errors.ts';
import { commandFailed } from './errors.ts';
import { HttpGetError, shownUrl } from './http.ts';
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

const BASE64_TEXT = /^[A-Za-z0-9+/=\s]+$/;

// Python's b64decode, which IPA uses: characters outside the alphabet are dropped, then the rest
// must come in whole groups of four; Buffer.from(…, 'base64') would take anything.
function base64Decode(text: string, node: string, url: string | null): Buffer {
  const kept = text.replace(/[^A-Za-z0-9+/=]/g, '');
  if (kept.length % 4 !== 0) {
    throw commandFailed(`Config drive for node ${node} is not base64 encoded or the content is malformed. Error: Incorrect padding.${url === null ? '' : ` Downloaded from "${shownUrl(url)}".`}`);
  }
  return Buffer.from(kept, 'base64');
}

// IPA (partition_utils.get_configdrive) gunzips what it decoded; gzip is not optional.
function gunzipDrive(bytes: Buffer, node: string): Buffer {
  const failed = (why: string): AgentError => commandFailed(`Encountered error while decompressing and writing config drive for node ${node}. Error: ${why}`);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw failed(`Not a gzipped file (starts with ${JSON.stringify(bytes.subarray(0, 2).toString('latin1'))})`);
  try {
    return gunzipSync(bytes);
  } catch (err) {
    throw failed(err instanceof Error ? err.message : String(err));
  }
}

function isoDrive(iso: Buffer, node: string, source: 'iso' | 'url', url: string | null, hint = ''): ConfigDrive {
  let files: Map<string, Buffer>;
  try {
    files = readIso(iso);
  } catch (err) {
    // IPA would write these bytes to the config-2 partition as they are and the instance would
    // find no config drive there; the simulator says so rather than record a drive nobody can read.
    throw commandFailed(`The config drive for node ${node} is not an ISO 9660 image${hint} (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  return fromFiles(source, url, iso, files);
}

/**
 * Decode what Ironic sent for a node (image_info.node_uuid, "local" when absent, as IPA says):
 * base64 of a gzipped ISO, or the URL of one. What a URL serves is decoded the same way when it
 * is base64 text, else taken as a plain ISO (IPA: "not base64 encoded, assuming binary").
 */
export async function decodeConfigDrive(value: unknown, fetchBytes: (url: string) => Promise<Buffer>, node = 'local'): Promise<ConfigDrive> {
  if (typeof value === 'string') {
    if (/^https?:\/\//.test(value)) {
      let bytes: Buffer;
      try {
        bytes = await fetchBytes(value);
      } catch (err) {
        const why = err instanceof HttpGetError && err.status !== 0 ? `Got status code ${err.status}` : `Reason: ${err instanceof Error ? err.message : String(err)}`;
        throw commandFailed(`Can't download the configdrive content for node ${node} from '${shownUrl(value)}'. ${why}`, { cause: err });
      }
      if (BASE64_TEXT.test(bytes.toString('latin1'))) return isoDrive(gunzipDrive(base64Decode(bytes.toString('latin1'), node, value), node), node, 'url', value);
      const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
      return isoDrive(bytes, node, 'url', value, gzipped ? ': gzipped data must be base64-encoded' : '');
    }
    return isoDrive(gunzipDrive(base64Decode(value, node, null), node), node, 'iso', null);
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
