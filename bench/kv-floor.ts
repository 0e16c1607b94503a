// Starts and stops the plain KV-write responders of bench/kv-floor-responder.ts, one process each,
// as the nodes are: the floor pays the same process hops a command does.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const RESPONDER = fileURLToPath(new URL('./kv-floor-responder.ts', import.meta.url));
const START_LIMIT_MS = 30_000;

export interface KvFloor {
  /** Send to `${prefix}.<host index>`. */
  readonly prefix: string;
  stop(): Promise<void>;
}

export async function startKvFloor(options: { url: string; responders: number; valueBytes: number; replyBytes: number }): Promise<KvFloor> {
  const prefix = 'bench.kvfloor';
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const limit = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(limit);
    }));
  };
  try {
    for (let i = 0; i < options.responders; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', RESPONDER, options.url, prefix, 'bench-kv-floor', String(options.valueBytes), String(options.replyBytes)], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      const err: string[] = [];
      child.stderr?.on('data', (b: Buffer) => err.push(b.toString()));
      await new Promise<void>((resolve, reject) => {
        const limit = setTimeout(() => reject(new Error(`KV floor responder ${i} did not start within ${START_LIMIT_MS} ms: ${err.join('')}`)), START_LIMIT_MS);
        createInterface({ input: child.stdout! }).once('line', () => {
          clearTimeout(limit);
          resolve();
        });
        child.once('exit', (code) => {
          clearTimeout(limit);
          reject(new Error(`KV floor responder ${i} exited (${code}): ${err.join('')}`));
        });
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { prefix, stop };
}
