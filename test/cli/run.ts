import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURES = 'test/fixtures/validate';

export type Run = { code: number; stdout: string; stderr: string };

/** Runs `node bin/metalfleet.js ...args` from the repository root. */
export function metalfleet(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}
