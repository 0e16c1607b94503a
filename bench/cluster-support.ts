// Shared pieces of the benches that run a whole cluster (test/support/cluster.ts): hosts to
// apply, polling with a deadline, a closed-loop load generator, and shard ownership read back
// from the nodes' ownership logs.
import { PAUSED_ANNOTATION } from '../src/api/index.ts';
import type { BareMetalHost } from '../src/api/index.ts';
import type { OwnershipRecord } from '../src/cluster/index.ts';

/** Hosts in namespace `fleet` (the harness's secrets file holds their BMC credentials there). */
export function fleetHosts(count: number, opts: { paused: boolean; prefix?: string }): BareMetalHost[] {
  const hex = (n: number): string => (n & 0xff).toString(16).padStart(2, '0');
  const out: BareMetalHost[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: `${opts.prefix ?? 'host'}-${i}`,
        namespace: 'fleet',
        ...(opts.paused ? { annotations: { [PAUSED_ANNOTATION]: '' } } : {}),
      },
      spec: {
        online: true,
        bootMode: 'UEFI',
        automatedCleaningMode: 'metadata',
        bmc: { address: `ipmi://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, credentialsName: 'bmc' },
        bootMACAddress: `52:54:00:${hex(i >> 16)}:${hex(i >> 8)}:${hex(i)}`,
        image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
        inspectionMode: 'disabled',
      },
    });
  }
  return out;
}

export function progress(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

/** Polls `cond` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function pollUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: still not the case after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export interface LoadResult {
  /** Milliseconds per request, in completion order; failed requests are not in it. */
  readonly latenciesMs: number[];
  readonly errors: number;
  readonly firstError: string | null;
  readonly seconds: number;
}

/**
 * Closed loop: `concurrency` workers, each sending its next request as soon as the last one
 * answered, until `total` have been sent. `send(i)` resolves true for a good reply, false for an
 * error reply; a throw is an error too.
 */
export async function closedLoop(total: number, concurrency: number, send: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      let good = false;
      try {
        good = await send(i);
      } catch (error) {
        firstError ??= error instanceof Error ? error.message : String(error);
      }
      if (good) latenciesMs.push(performance.now() - t0);
      else errors += 1;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { latenciesMs, errors, firstError, seconds: (performance.now() - start) / 1000 };
}

/** Shard → the node holding it now, from the ownership records (killed nodes' end at their kill). */
export function currentOwners(records: readonly OwnershipRecord[]): Map<number, string> {
  const owners = new Map<number, string>();
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    if (r.kind === 'acquired') owners.set(r.shard, r.node);
    else if (owners.get(r.shard) === r.node) owners.delete(r.shard);
  }
  return owners;
}

export function round(n: number, digits: number): number {
  return Number(n.toFixed(digits));
}
