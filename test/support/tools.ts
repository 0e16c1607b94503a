import { spawnSync } from 'node:child_process';

/**
 * Whether the tests that need the command `name` (kubectl, tmux, nats-server, ...) should run.
 * Under CI (`CI=true`, as `.ci/run` sets it) they always run, so a missing real part is a failed
 * test that names it, never a skip; on a developer's machine without it they are skipped (and
 * `npm test` lists every skip by name).
 */
export function toolAvailable(name: string): boolean {
  if (process.env.CI === 'true') return true;
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
