// standby.prepare_image / the write_image deploy step: download from image_info.urls, verify the
// checksum the way IPA does, write it and the config drive to the disk. The same image id is not
// written twice by one running agent (IPA's cached_image_id).
import { expectedChecksum, digest } from './checksum.ts';
import { decodeConfigDrive } from './config-drive.ts';
import type { SimDisk } from './disk.ts';
import { checksumMismatch, downloadFailed } from './errors.ts';
import { fetchBytes } from './http.ts';

export interface WriteState { cachedImageId: string | null }

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export async function writeImage(disk: SimDisk, state: WriteState, info: Record<string, unknown>, configdrive: unknown): Promise<string> {
  const id = str(info['id']) ?? 'unknown';
  const urls = Array.isArray(info['urls']) ? info['urls'].filter((u): u is string => typeof u === 'string') : [];
  const url = urls[0];
  if (url === undefined) throw downloadFailed('(none)', `image_info.urls is empty for image ${id}`);
  const drive = configdrive ?? info['configdrive'];
  if (state.cachedImageId !== id || disk.image === null) {
    const expected = await expectedChecksum(info, url, async (u) => (await fetchBytes(u)).toString('utf8'));
    let bytes: Buffer | null = null;
    const errors: string[] = [];
    for (const u of urls) {
      try {
        bytes = await fetchBytes(u);
        break;
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (bytes === null) throw downloadFailed(url, errors.join('; '));
    const actual = digest(expected.algorithm, bytes);
    if (actual !== expected.value) {
      throw checksumMismatch(id, url, expected.value, actual);
    }
    disk.writeImage({
      id,
      url,
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
  if (drive !== null && drive !== undefined && drive !== '') disk.writeConfigDrive(await decodeConfigDrive(drive, (u) => fetchBytes(u)));
  const uuids = disk.partitionUuids();
  return `image (${id}) written to device ${disk.device} root_uuid=${String(uuids['root uuid'])}`;
}
