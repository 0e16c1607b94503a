// log.collect_system_logs answers {system_logs: base64 of a gzipped tar}; Ironic stores it as the
// ramdisk log of a failed deploy or clean. One file (agent.log) with the simulator's journal.
import { gzipSync } from 'node:zlib';

function header(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512);
  const field = (text: string, at: number, len: number): void => void h.write(text.slice(0, len), at, 'latin1');
  const octal = (n: number, at: number, len: number): void => field(`${n.toString(8).padStart(len - 1, '0')}\0`, at, len);
  field(name, 0, 100);
  octal(0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(mtime, 136, 12);
  h.fill(' ', 148, 156);
  field('0', 156, 1);
  field('ustar\0', 257, 6);
  field('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  field(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

export function systemLogs(journal: readonly string[], now = new Date()): string {
  const body = Buffer.from(journal.join('\n') + '\n');
  const pad = Buffer.alloc((512 - (body.length % 512)) % 512);
  const tar = Buffer.concat([header('agent.log', body.length, Math.floor(now.getTime() / 1000)), body, pad, Buffer.alloc(1024)]);
  return gzipSync(tar).toString('base64');
}
