// Runs maasflow against a MAAS and collects its steps (one JSON line each).
import { spawn } from 'node:child_process';

export interface FlowStep {
  step: string;
  ok: boolean;
  error?: string;
  [fact: string]: unknown;
}

export interface FlowRun {
  steps: FlowStep[];
  code: number | null;
  stderr: string;
}

export interface FlowOptions {
  /** Flags before URL and KEY, e.g. ['-zone', 'az1']. */
  flags?: readonly string[];
  /** With -pause-before-release: called at the pause; the flow resumes when it resolves. */
  atPause?: (step: FlowStep) => Promise<void>;
  timeoutMs?: number;
}

function parseLine(line: string): FlowStep {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && typeof (value as FlowStep).step === 'string') return value as FlowStep;
  } catch {
    // not JSON: reported below as a failed step so the test shows it
  }
  return { step: 'unparsable-output', ok: false, error: line };
}

export function runFlow(binary: string, url: string, key: string, options: FlowOptions = {}): Promise<FlowRun> {
  const flags = [...(options.flags ?? []), ...(options.atPause ? ['-pause-before-release'] : [])];
  const child = spawn(binary, [...flags, url, key], { stdio: ['pipe', 'pipe', 'pipe'] });
  const steps: FlowStep[] = [];
  let stderr = '';
  let pending = '';
  let paused: Promise<void> = Promise.resolve();
  let pauseError: unknown;
  const timeoutMs = options.timeoutMs ?? 90_000;
  // The flow may exit before it reads stdin (a failed allocate skips the pause).
  child.stdin.on('error', () => undefined);
  return new Promise<FlowRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`maasflow did not finish within ${timeoutMs} ms; steps so far: ${steps.map((s) => s.step).join(', ')}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.trim() !== '')) {
        const step = parseLine(line);
        steps.push(step);
        if (step.step === 'pause' && options.atPause) {
          const atPause = options.atPause;
          // Caught at once (kept for the end): a rejection left waiting for the close would be unhandled.
          paused = atPause(step)
            .catch((err: unknown) => {
              pauseError = err;
            })
            .finally(() => child.stdin.end('\n'));
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (pending.trim() !== '') steps.push(parseLine(pending));
      void paused.then(() => {
        if (pauseError === undefined) resolve({ steps, code, stderr });
        else reject(pauseError instanceof Error ? pauseError : new Error(String(pauseError)));
      });
    });
  });
}
