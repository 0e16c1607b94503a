// Just enough ISO 9660 to read back the config drive Ironic builds with genisoimage (-J -r):
// files by path from the Joliet tree when there is one, else from the primary tree with Rock
// Ridge names. No extended attributes, no multi-extent files: genisoimage writes neither for
// a config drive.
const SECTOR = 2048;

interface Entry { name: string; lba: number; size: number; dir: boolean }

function jolietVolume(iso: Buffer, at: number): boolean {
  const esc = iso.subarray(at + 88, at + 91).toString('latin1');
  return esc === '%/@' || esc === '%/C' || esc === '%/E';
}

function rockRidgeName(sua: Buffer): string | null {
  let name = '';
  let found = false;
  for (let i = 0; i + 4 <= sua.length;) {
    const sig = sua.subarray(i, i + 2).toString('latin1');
    const len = sua[i + 2] ?? 0;
    if (len < 4) break;
    if (sig === 'NM') {
      found = true;
      name += sua.subarray(i + 5, i + len).toString('utf8');
    }
    i += len;
  }
  return found ? name : null;
}

function readDir(iso: Buffer, lba: number, size: number, joliet: boolean): Entry[] {
  const out: Entry[] = [];
  const start = lba * SECTOR;
  for (let off = start; off < start + size;) {
    const len = iso[off] ?? 0;
    if (len === 0) {
      // Records never span sectors: the rest of this one is padding.
      off = (Math.floor((off - start) / SECTOR) + 1) * SECTOR + start;
      continue;
    }
    const nameLen = iso[off + 32] ?? 0;
    const rawName = iso.subarray(off + 33, off + 33 + nameLen);
    const special = nameLen === 1 && (rawName[0] === 0 || rawName[0] === 1);
    if (!special) {
      let name: string;
      if (joliet) {
        name = Buffer.from(rawName).swap16().toString('utf16le');
      } else {
        const suaStart = off + 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0);
        name = rockRidgeName(iso.subarray(suaStart, off + len)) ?? rawName.toString('latin1');
      }
      out.push({
        name: name.replace(/;\d+$/, '').replace(/\.$/, ''),
        lba: iso.readUInt32LE(off + 2),
        size: iso.readUInt32LE(off + 10),
        dir: ((iso[off + 25] ?? 0) & 0x02) !== 0,
      });
    }
    off += len;
  }
  return out;
}

/** Every regular file in the image, by path without a leading slash ("openstack/latest/meta_data.json"). */
export function readIso(iso: Buffer): Map<string, Buffer> {
  let root: { lba: number; size: number; joliet: boolean } | null = null;
  for (let vd = 16; (vd + 1) * SECTOR <= iso.length; vd++) {
    const at = vd * SECTOR;
    const type = iso[at];
    if (iso.subarray(at + 1, at + 6).toString('latin1') !== 'CD001' || type === 255) break;
    const joliet = type === 2 && jolietVolume(iso, at);
    if (type === 1 || joliet) {
      const rec = at + 156;
      const candidate = { lba: iso.readUInt32LE(rec + 2), size: iso.readUInt32LE(rec + 10), joliet };
      if (root === null || joliet) root = candidate;
    }
  }
  if (root === null) throw new Error('readIso: no ISO 9660 volume descriptor (CD001) at sector 16');
  const files = new Map<string, Buffer>();
  const walk = (lba: number, size: number, prefix: string, depth: number): void => {
    if (depth > 16) return;
    for (const e of readDir(iso, lba, size, root!.joliet)) {
      const path = prefix + e.name;
      if (e.dir) walk(e.lba, e.size, `${path}/`, depth + 1);
      else files.set(path, iso.subarray(e.lba * SECTOR, e.lba * SECTOR + e.size));
    }
  };
  walk(root.lba, root.size, '', 0);
  return files;
}
