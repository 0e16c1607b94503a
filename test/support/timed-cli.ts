import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `metalfleet ARGS` run to its exit: its exit code, its stderr, and how long it took (stdout ignored). */
export async function timedCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stderr: string; tookMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/metalfleet.js', ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', (c) => resolve(c));
  });
  return { code, stderr, tookMs: performance.now() - started };
}
