// What this process starts beside itself (a private Ironic, its folders) must not outlive it when it
// dies without stopping them: kill -9, a crash, an OOM kill. Its 'exit' handlers run on none of
// those, and Ironic runs in its own process group (so a terminal's Ctrl-C reaches this process
// alone, which stops it in order), where nothing else would end it.
//
// The guard is a small shell in a process group of its own (no terminal signal reaches it), whose
// stdin is a pipe this process holds open and never writes to. However this process dies, the
// kernel closes that pipe; the shell's `read` then returns, and it ends the process group it was
// given (SIGTERM, SIGKILL after a grace period) and removes the folders. release() ends the guard
// without it doing anything: for a stop this process does itself.
import { spawn } from 'node:child_process';

export interface OrphanGuard {
  /** Ends the guard, leaving the process group and the folders alone (this process stops them). */
  release(): void;
}

// $1: the process group (0: none), then the folders. `read` blocks until end of file: the write end
// is this process's, and nothing is written. The grace period is 10 s in tenths, as stop()'s.
const SCRIPT = [
  "trap '' INT HUP TERM QUIT",
  'read _ || true',
  'pgid=$1; shift',
  'if [ "$pgid" != 0 ]; then',
  '  kill -s TERM -- "-$pgid" 2>/dev/null',
  '  i=0',
  '  while kill -s 0 -- "-$pgid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done',
  '  kill -s KILL -- "-$pgid" 2>/dev/null',
  'fi',
  'rm -rf -- "$@"',
].join('\n');

/**
 * Ends `processGroup` (a detached child's pid) and removes `dirs` when this process dies without
 * releasing the guard first. Held by no event loop reference: it never keeps this process alive.
 */
export function guardAgainstOrphans(o: { processGroup?: number; dirs?: readonly string[] }): OrphanGuard {
  const child = spawn('/bin/sh', ['-c', SCRIPT, 'metalfleet-orphan-guard', String(o.processGroup ?? 0), ...(o.dirs ?? [])], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // A guard that could not start (no /bin/sh) leaves things as they were before guards existed.
  child.once('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.unref();
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // SIGKILL: the script ignores the others, so that a group signal meant for its owner does not end it.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      child.stdin?.destroy();
    },
  };
}
