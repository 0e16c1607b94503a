// `npm run ironic:start -- …`: --help prints the usage and exits 0; an argument it does not know
// (a typo such as --prot) is refused naming it, exit 2. Neither starts an Ironic.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function start(...args: string[]): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Bounded: before the fix each of these started an Ironic and ran until stopped.
    execFile(process.execPath, ['--import=tsx', 'scripts/ironic-start.ts', ...args], { cwd: ROOT, timeout: 30_000, killSignal: 'SIGTERM' }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number | string; signal?: string }) | null;
      resolve({ code: e === null ? 0 : typeof e.code === 'number' ? e.code : null, signal: e?.signal ?? null, stdout, stderr });
    });
  });
}

test('ironic:start --help prints the usage and exits 0 without starting Ironic', async (t) => {
  for (const flag of ['--help', '-h']) {
    const r = await start(flag);
    t.is(r.code, 0, `${flag}: ${r.signal ?? ''} ${r.stderr}`);
    t.regex(r.stdout, /usage: npm run ironic:start/);
    t.regex(r.stdout, /--port N/);
    t.notRegex(r.stdout, /IRONIC_ENDPOINT=http/);
  }
});

test('ironic:start refuses an unknown argument naming it, exit 2, without starting Ironic', async (t) => {
  const r = await start('--prot', '5000');
  t.is(r.code, 2, `${r.signal ?? ''} ${r.stderr}`);
  t.regex(r.stderr, /unknown argument "--prot"/);
  t.notRegex(r.stdout, /IRONIC_ENDPOINT=http/);
  const bad = await start('--port', 'x');
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--port needs a number/);
});
