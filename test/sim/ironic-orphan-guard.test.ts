// A demo killed with kill -9 (no exit handler runs) must not leave its private Ironic running,
// nor its /tmp/metalfleet-ironic-* and /tmp/metalfleet-datacenter-* folders: the orphan guard
// (src/sim/ironic/orphan-guard.ts) ends the Ironic process group and removes them.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { ironicInstalled } from '../support/ironic.ts';
import { waitUntil } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Pids whose command line names this configuration file (the Ironic of that folder). */
function ironicPids(confPath: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(confPath)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie is gone for this purpose: it runs nothing (its parent has not reaped it yet).
    return !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test('a private Ironic ends, and its folders go, when the process that started it is killed with SIGKILL', async (t) => {
  t.true(ironicInstalled(), 'Ironic must be installed (scripts/ironic-install.sh)');
  const owner = spawn(process.execPath, ['--import=./test/support/ts-loader/register.mjs', '--conditions=metalfleet-source', 'test/sim/support/private-ironic-owner.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let pids: number[] = [];
  t.teardown(() => {
    // Whatever the outcome, nothing of this test stays running.
    for (const pid of [owner.pid ?? 0, ...pids]) {
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    owner.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    owner.once('exit', (code) => reject(new Error(`the owner exited (${code}) before starting Ironic`)));
  });
  const { ironicDir, datacenterDir } = JSON.parse(line) as { ironicDir: string; datacenterDir: string };
  t.regex(ironicDir, /metalfleet-ironic-/);
  t.regex(datacenterDir, /metalfleet-datacenter-/);
  pids = ironicPids(`${ironicDir}/ironic.conf`);
  t.true(pids.length > 0, 'the private Ironic runs');
  t.true(existsSync(ironicDir) && existsSync(datacenterDir));

  owner.kill('SIGKILL');
  await waitUntil(() => pids.every((pid) => !alive(pid)), 30_000, 'the private Ironic ended after its owner was killed', 100);
  await waitUntil(() => !existsSync(ironicDir) && !existsSync(datacenterDir), 10_000, 'the Ironic and datacenter folders removed', 100);
  t.deepEqual(ironicPids(`${ironicDir}/ironic.conf`).filter(alive), []);
});
