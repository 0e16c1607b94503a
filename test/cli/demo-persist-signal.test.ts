// Ctrl-C while `demo --persist FILE` is saving: the save writes FILE.<pid>.<n>.tmp and renames it
// over FILE, and a SIGINT between the two left the temporary file behind. Now the save in progress
// is abandoned and its temporary file removed before the demo exits: FILE is the last complete
// save, whole, and nothing else is left in the folder.
import { spawn } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { ROOT } from './run.ts';

test('demo persist - SIGINT during a save leaves the last complete file and no temporary file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-persist-signal-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'state.json');
  // Enough hosts that a save takes a while, slow enough calls that the demo saves several times.
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'demo', '--hosts', '2000', '--no-maas', '--latency', '20', '--timeout', '100', '--json', '--persist', path], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // Watched, not polled: the signal goes the moment the second save opens its temporary file,
  // after a first save has put a complete FILE in place.
  const interrupted = new Promise<void>((resolve, reject) => {
    const watcher = watch(dir, (_event, name) => {
      // A temporary file that is there now (not the first one's rename away), beside a FILE.
      if (!name?.endsWith('.tmp') || !existsSync(join(dir, name)) || !existsSync(path)) return;
      watcher.close();
      child.kill('SIGINT');
      resolve();
    });
    void exited.then(() => reject(new Error(`the demo ended before a second save: ${stderr}`)));
  });
  await interrupted;
  const { code, signal } = await exited;
  // Whether the signal came before the rename depends on the machine; either way nothing is left.
  t.log(/that save was abandoned/.test(stderr) ? 'the signal came during the save' : 'the save was done before the signal');
  t.deepEqual(await readdir(dir), ['state.json'], 'no temporary file is left');
  const saved = JSON.parse(await readFile(path, 'utf8')) as { version: number; buckets: Record<string, Record<string, unknown>> };
  t.is(saved.version, 2);
  t.is(Object.keys(saved.buckets['mf-hosts'] ?? {}).length, 2000, 'the file is the first save, whole');
  t.is(signal, null, `the demo handled the signal itself: ${stderr}`);
  t.is(code, 130, stderr);
});

