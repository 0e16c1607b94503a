// npm run bench -- actor-turns: the actor runtime's own cost per message, as a ratio within one
// process (so a shared machine distorts it less than wall time): the same synchronous handler run
// through actors and called directly. CPU µs from process.cpuUsage; bytes allocated from heapUsed
// deltas across a run that does no scavenge (the bench script's 32 MB semi-space; gc() before).
import { startSystem, spawn, tell, tellExpress } from '../src/actors/runtime/index.ts';
import type { ActorRef, Behavior } from '../src/actors/runtime/index.ts';
import { intFlag } from './support.ts';

type Msg = { n: number };
const handle = (state: number, msg: Msg): number => state + msg.n;
const counter: Behavior<number, Msg> = { kind: 'bench-counter', init: () => 0, receive: handle };

const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});

interface Sample { cpuMicros: number; bytes: number }

async function measure(messages: number, run: () => Promise<void>): Promise<Sample> {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  await run();
  const cpu = process.cpuUsage(cpu0);
  const bytes = process.memoryUsage().heapUsed - heap0;
  return { cpuMicros: (cpu.user + cpu.system) / messages, bytes: bytes / messages };
}

/** Resolves once every actor handled `each` more messages (polling on setImmediate, no timers). */
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = (): void => (done() ? resolve() : void setImmediate(look));
    look();
  });
}

export async function run(flags: Record<string, string>): Promise<object> {
  // Through intFlag: Number('abc') went on as NaN into a mailbox capacity, a RangeError deep in spawn.
  const actors = intFlag(flags, 'actors', 2000);
  const rounds = intFlag(flags, 'rounds', 20);
  const repeat = intFlag(flags, 'repeat', 3);
  const system = startSystem({ name: 'bench-actor-turns', onError: () => {} });
  const refs: ActorRef<Msg>[] = [];
  for (let i = 0; i < actors; i++) refs.push(spawn(system, `c${i}`, counter));
  const cells = refs as unknown as { state: number; processed: number }[];
  // The burst goes to an actor of its own whose mailbox holds it (the default rejects past 10,000).
  const burstRef = spawn(system, 'burst', counter, { mailbox: { capacity: actors * rounds + 1 } });
  const burstCell = burstRef as unknown as { processed: number };
  const msg: Msg = { n: 1 };
  const messages = actors * rounds;
  let target = 0;

  // A fleet: every actor gets one message per round, so every message is its own turn.
  const fleet = async (send: typeof tell): Promise<void> => {
    for (let r = 0; r < rounds; r++) {
      target++;
      for (const ref of refs) send(ref, msg);
      await until(() => cells.every((c) => c.processed >= target));
    }
  };
  // One actor, a burst: turns of up to THROUGHPUT messages.
  const burst = async (): Promise<void> => {
    const want = burstCell.processed + messages;
    for (let i = 0; i < messages; i++) tell(burstRef, msg);
    await until(() => burstCell.processed >= want);
  };
  const direct = async (): Promise<void> => {
    let s = 0;
    for (let i = 0; i < messages; i++) s = handle(s, msg);
    await until(() => s > 0);
  };

  const best = (xs: Sample[]): Sample => xs.reduce((a, b) => (b.cpuMicros < a.cpuMicros ? b : a));
  const samples: Record<string, Sample[]> = { fleet: [], express: [], burst: [], direct: [] };
  await measure(messages, () => fleet(tell)); // warm up
  for (let i = 0; i < repeat; i++) {
    samples.fleet!.push(await measure(messages, () => fleet(tell)));
    samples.express!.push(await measure(messages, () => fleet(tellExpress)));
    samples.burst!.push(await measure(messages, burst));
    samples.direct!.push(await measure(messages, direct));
  }
  system.stop();
  const out: Record<string, number> = { actors, messagesPerRun: messages };
  const base = best(samples.direct!).cpuMicros;
  for (const [name, xs] of Object.entries(samples)) {
    const b = best(xs);
    out[`${name}CpuMicrosPerMsg`] = Number(b.cpuMicros.toFixed(3));
    out[`${name}BytesPerMsg`] = Math.round(b.bytes);
    if (name !== 'direct') out[`${name}OverDirect`] = Math.round(b.cpuMicros / Math.max(base, 0.001));
  }
  return out;
}
