// standby.prepare_image / the write_image deploy step: check image_info, download from its urls,
// verify the checksum the way IPA does, write it and the config drive to the disk. The same image
// id is not written twice by one running agent (IPA's cached_image_id).
import { expectedChecksum, digest } from './checksum.ts';
import type { ExpectedChecksum } from './checksum.ts';
import { decodeConfigDrive } from './config-drive.ts';
import type { SimDisk } from './disk.ts';
import { checksumMismatch, downloadFailed, invalidParams } from './errors.ts';
import { HttpGetError, httpGet, shownUrl } from './http.ts';
import { installDevice } from './root-device.ts';

export interface WriteState { cachedImageId: string | null }

/** How downloads are retried: IPA's image_download_connection_retries and _retry_interval. */
export interface DownloadPolicy {
  /** Extra tries after a failed one (no answer, a cut-off body, a 5xx, a checksum mismatch); a 4xx is never retried. Default 2, as IPA. */
  readonly retries: number;
  /** Pause before each retry; IPA waits 10 s, the simulator 1 s unless told. */
  readonly intervalMs: number;
}

export const DEFAULT_DOWNLOAD_POLICY: DownloadPolicy = { retries: 2, intervalMs: 1_000 };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** IPA's _validate_image_info: what an image_info must hold before anything is downloaded. */
export function validateImageInfo(info: unknown): asserts info is Record<string, unknown> {
  const i = (info !== null && typeof info === 'object' && !Array.isArray(info) ? info : {}) as Record<string, unknown>;
  for (const field of ['id', 'urls']) {
    if (!(field in i)) throw invalidParams(`Image is missing '${field}' field.`);
  }
  if (!Array.isArray(i['urls']) || i['urls'].length === 0) throw invalidParams("Image 'urls' must be a list with at least one element.");
  const checksum = i['checksum'];
  if (checksum !== undefined && checksum !== null && (typeof checksum !== 'string' || checksum === '')) throw invalidParams("Image 'checksum' must be a non-empty string.");
  const algo = i['os_hash_algo'];
  const value = i['os_hash_value'];
  if (algo || value) {
    if (typeof algo !== 'string' || algo === '') throw invalidParams("Image 'os_hash_algo' must be a non-empty string.");
    if (typeof value !== 'string' || value === '') throw invalidParams("Image 'os_hash_value' must be a non-empty string.");
  }
  if (!(typeof checksum === 'string' && checksum !== '') && !(algo && value)) {
    throw invalidParams("Image checksum is not available, either the 'checksum' field or the 'os_hash_algo' and 'os_hash_value' fields pair must be set for image verification.");
  }
}

// One URL with IPA's retries: a failure without an answer, a body cut short or a 5xx is tried
// again; a 4xx is final (the server said no).
async function download(url: string, policy: DownloadPolicy): Promise<Buffer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await httpGet(url)).body;
    } catch (err) {
      if (!(err instanceof HttpGetError) || !err.retryable || attempt >= policy.retries) throw err;
      await later(policy.intervalMs);
    }
  }
}

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

// IPA's _download_image: the checksum (fetched if it is a URL), the image from the first URL that
// gives it, then the verification; a mismatch is an ImageChecksumError that, like a failed
// download, is tried again from the start (image_download_connection_retries) before it is final.
async function downloadVerified(info: Record<string, unknown>, id: string, urls: readonly string[], url: string, policy: DownloadPolicy): Promise<{ expected: ExpectedChecksum; bytes: Buffer }> {
  for (let attempt = 0; ; attempt++) {
    const expected = await expectedChecksum(info, url, async (u) => {
      try {
        return (await download(u, policy)).toString('utf8');
      } catch (err) {
        // IPA names a checksums file it could not get by its URL, as if it were the image.
        throw downloadFailed(shownUrl(u), reason(err));
      }
    });
    let bytes: Buffer | null = null;
    const errors: string[] = [];
    for (const u of urls) {
      try {
        bytes = await download(u, policy);
        break;
      } catch (err) {
        errors.push(`URL: ${shownUrl(u)}; Error: ${reason(err)}`);
      }
    }
    if (bytes === null) throw downloadFailed(id, errors.join('\n '));
    const actual = digest(expected.algorithm, bytes);
    if (actual === expected.value) return { expected, bytes };
    if (attempt >= policy.retries) throw checksumMismatch(id, shownUrl(url), expected.value, actual);
    await later(policy.intervalMs);
  }
}

/** `node`: the node the ramdisk last heard of, whose root device hints must match the disk. */
export async function writeImage(disk: SimDisk, state: WriteState, rawInfo: unknown, configdrive: unknown, policy: DownloadPolicy = DEFAULT_DOWNLOAD_POLICY, node: unknown = null): Promise<string> {
  validateImageInfo(rawInfo);
  const info = rawInfo;
  // IPA picks the install device before it downloads anything.
  installDevice(disk.blockDevice(), node);
  const id = String(info['id']);
  const urls = (info['urls'] as unknown[]).filter((u): u is string => typeof u === 'string');
  const url = urls[0];
  if (url === undefined) throw invalidParams("Image 'urls' must be a list with at least one element.");
  const drive = configdrive ?? info['configdrive'];
  if (state.cachedImageId !== id || disk.image === null) {
    const { expected, bytes } = await downloadVerified(info, id, urls, url, policy);
    disk.writeImage({
      id,
      url: shownUrl(url),
      bytes: bytes.length,
      checksum: expected,
      diskFormat: str(info['disk_format']),
      imageType: info['image_type'] === 'partition' ? 'partition' : 'whole-disk',
    }, {
      uefi: info['deploy_boot_mode'] === 'uefi',
      swapMb: Number(info['swap_mb'] ?? 0),
      ephemeralMb: Number(info['ephemeral_mb'] ?? 0),
    });
    state.cachedImageId = id;
  }
  if (drive !== null && drive !== undefined && drive !== '') {
    disk.writeConfigDrive(await decodeConfigDrive(drive, async (u) => (await httpGet(u, { accept: (s) => s < 400 })).body, str(info['node_uuid']) ?? 'local'));
  }
  // IPA's _message_format: the ESP's UUID too, for a UEFI deploy that made one.
  const uuids = disk.partitionUuids();
  const esp = info['deploy_boot_mode'] === 'uefi' ? uuids['efi system partition uuid'] : undefined;
  return `image (${id}) written to device ${disk.device} root_uuid=${String(uuids['root uuid'])}${esp ? ` efi_system_partition_uuid=${String(esp)}` : ''}`;
}
