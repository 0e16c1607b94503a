// Drives one provisioner call to its end as the host actor would: called again after each
// `continuing` (its wait capped at 20 ms), failing the test on `failed`.
import type { CallArgs, OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';

export async function untilDone(p: Provisioner, args: CallArgs, h: HostData): Promise<OpResult & { kind: 'done' }> {
  for (let i = 0; i < 500; i++) {
    const r = await (p[args.op as 'register'] as (h: HostData, a: CallArgs) => Promise<OpResult>).call(p, h, args);
    if (r.kind === 'done') return r;
    if (r.kind === 'failed') throw new Error(`${args.op} failed: ${r.message}`);
    await new Promise((resolve) => setTimeout(resolve, r.kind === 'continuing' ? Math.min(r.afterMs, 20) : 20));
  }
  throw new Error(`${args.op} did not finish`);
}
