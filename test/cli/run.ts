import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURES = 'test/fixtures/validate';

export type Run = { code: number; stdout: string; stderr: string };

/** Runs `node bin/metalfleet.js ...args` from the repository root. */
export function metalfleet(...args: string[]): Promise<Run> {
  return metalfleetWithEnv({}, ...args);
}

/** As metalfleet, with `env` added to this process's environment. */
export function metalfleetWithEnv(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/**
 * Runs `node bin/metalfleet.js ...args`, reads its first chunk of stdout, then closes the pipe as
 * `head -1` does while the command may still be writing.
 */
function readFirstThenClose(args: readonly string[]): Promise<{ code: number | null; first: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let first = '';
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.once('data', (b: Buffer) => {
      first = b.toString();
      child.stdout.destroy();
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, first, stderr });
    });
  });
}

/**
 * `metalfleet ARGS | head -1`, once per output format: the command printed something before the
 * pipe closed, nothing on stderr, exit 0. `what` names the command in the assertions.
 */
export async function endsQuietlyWhenReaderCloses(t: ExecutionContext, what: string, args: readonly string[], formats: ReadonlyArray<readonly string[]>): Promise<void> {
  for (const format of formats) {
    const r = await readFirstThenClose([...args, ...format]);
    const shown = [what, ...format].join(' ');
    t.true(r.first.length > 0, `${shown}: printed something before the pipe closed`);
    t.is(r.stderr, '', `${shown}: nothing on stderr`);
    t.is(r.code, 0, shown);
  }
}
