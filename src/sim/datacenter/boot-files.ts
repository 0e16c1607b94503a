// The deploy ramdisk a virtual datacenter boots: stand-ins for IPA's kernel, initramfs and ISO.
// Ironic only moves them around (caches, links under http_root, inserts as virtual media); the
// simulated firmware recognises them by content, so each says what it is.
export const DEPLOY_FILES = {
  'ipa.kernel': 'metalfleet virtual datacenter: ironic-python-agent kernel\n',
  'ipa.initramfs': 'metalfleet virtual datacenter: ironic-python-agent initramfs\n',
  'ipa.iso': 'metalfleet virtual datacenter: ironic-python-agent ISO\n',
} as const;

/** A deterministic whole-disk image of about `bytes` bytes. */
export function demoImage(bytes = 1 << 20): Buffer {
  const line = Buffer.from('metalfleet virtual datacenter whole-disk image\n');
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / line.length) }, () => line)).subarray(0, bytes);
}
