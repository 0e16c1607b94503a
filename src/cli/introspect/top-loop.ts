// `metalfleet top`, the terminal half: sample the cluster every interval, draw a frame with plain
// ANSI escapes (alternate screen, cursor home, erase to end of line), read keys in raw mode, and
// put the terminal back however we leave.
import { announcedShardCount, gather, listNodes, storedHosts } from '../../cluster/introspect/index.ts';
import type { Transport } from '../../ports/index.ts';
import { oneLine } from './format.ts';
import type { ActorRow, HostRow, OnNode, PoolRow } from './rows.ts';
import { seconds } from './session.ts';
import { handleKeys, INITIAL_KEYS, renderFrame, summarize, type KeyState, type TopData } from './top.ts';
import { errorMessage } from '../../api/index.ts';

export interface SampleOptions {
  readonly timeoutMs: number;
  readonly nodes?: readonly string[];
  readonly now?: () => number;
}

/** One refresh: hosts, actors and capacity from every node, at once. */
export async function sampleTop(transport: Transport, options: SampleOptions): Promise<TopData> {
  const narrowed = options.nodes && options.nodes.length > 0;
  const members = narrowed ? null : await listNodes(transport);
  const o = { timeoutMs: options.timeoutMs, nodes: narrowed ? options.nodes ?? [] : (members ?? []).map((m) => m.node) };
  const [hosts, actors, capacity, shards] = await Promise.all([
    gather(transport, 'hosts', {}, o),
    gather(transport, 'actors', {}, o),
    gather(transport, 'capacity', {}, o),
    narrowed ? null : gather(transport, 'shards', {}, o),
  ]);
  // As `hosts`: a killed node's hosts (its leases stand until their TTL) from a live node's store.
  const stored = await storedHosts(transport, {}, hosts, shards, announcedShardCount(members), options);
  const all = [hosts, actors, capacity];
  const nodes = [...new Set(all.flatMap((g) => g.replies.map((r) => r.node)))].sort();
  // Missing means no answer at all; a node that answered some questions but not all is slow.
  const missing = [...new Set(all.flatMap((g) => g.missing))].filter((n) => !nodes.includes(n)).sort();
  const slow = [...new Set(all.flatMap((g) => g.missing))].filter((n) => nodes.includes(n)).sort();
  const failed = all.flatMap((g) => g.errors);
  const problem = nodes.length === 0 && failed.length === 0
    ? `no metalfleet node answered within ${seconds(options.timeoutMs)}`
    : failed.length > 0 ? `node ${failed[0]?.node}: ${oneLine(failed[0]?.message ?? '')}`
      : slow.length > 0 ? `partial answer from ${slow.join(', ')} within ${seconds(options.timeoutMs)} (some figures are missing)` : undefined;
  const on = <R>(node: string, rows: readonly R[]): Array<OnNode<R>> => rows.map((r) => ({ ...r, node }));
  return summarize({
    at: (options.now ?? Date.now)(),
    nodes,
    missing,
    hosts: [...hosts.replies.flatMap((r): Array<OnNode<HostRow>> => on(r.node, r.value.hosts)), ...on('-', stored?.hosts ?? [])],
    actors: actors.replies.flatMap((r): Array<OnNode<ActorRow>> => on(r.node, r.value.actors)),
    pools: capacity.replies.filter((r) => r.value.broker).flatMap((r): Array<OnNode<PoolRow>> => on(r.node, r.value.pools)),
    ...(problem !== undefined ? { problem } : {}),
  });
}

export interface TerminalIn {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
  setEncoding?(encoding: BufferEncoding): unknown;
}

export interface TerminalOut {
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
  write(text: string): unknown;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

export interface TopLoopOptions extends SampleOptions {
  readonly intervalMs: number;
  readonly input: TerminalIn;
  readonly output: TerminalOut;
}

const ENTER = '\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J';
const LEAVE = '\u001b[?25h\u001b[?1049l';

/** Runs until `q` or Ctrl-C (or SIGTERM/SIGHUP); the terminal is restored on every way out. */
export async function runTop(transport: Transport, options: TopLoopOptions): Promise<void> {
  const { input, output } = options;
  let keys: KeyState = INITIAL_KEYS;
  let data: TopData | null = null;
  let restored = false;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const draw = (): void => {
    const width = output.columns && output.columns > 0 ? output.columns : 80;
    const height = output.rows && output.rows > 0 ? output.rows : 24;
    const lines = renderFrame(data, { width, height, sort: keys.sort, filter: keys.filter, editing: keys.editing });
    // Home, each line then erase to its end, then erase below: no flicker, nothing left over.
    output.write(`\u001b[H${lines.join('\u001b[K\r\n')}\u001b[K\u001b[J`);
  };
  const restore = (): void => {
    if (restored) return;
    restored = true;
    input.off('data', onData);
    output.off('resize', draw);
    if (input.isTTY && input.setRawMode) input.setRawMode(false);
    input.pause();
    output.write(LEAVE);
  };
  const onData = (chunk: Buffer | string): void => {
    const result = handleKeys(keys, typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    keys = result.state;
    if (result.quit) finish();
    else draw();
  };
  const onSignal = (): void => finish();

  let timer: NodeJS.Timeout | undefined;
  let sampling = false;
  const refresh = async (): Promise<void> => {
    // A slow cluster must not pile up requests: skip a tick while one is in flight.
    if (sampling || restored) return;
    sampling = true;
    try {
      data = await sampleTop(transport, options);
    } catch (error) {
      const problem = `refresh failed: ${oneLine(errorMessage(error))}`;
      // Before any answer there is no frame to put the problem on: an empty one says it, or
      // "waiting for the first answer" stayed on screen for good (NATS without JetStream, say).
      data = data ? { ...data, problem } : summarize({ at: (options.now ?? Date.now)(), nodes: [], missing: [], hosts: [], actors: [], pools: [], problem });
    } finally {
      sampling = false;
    }
    if (!restored) draw();
  };

  output.write(ENTER);
  process.once('exit', restore);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  process.once('SIGINT', onSignal);
  try {
    if (input.isTTY && input.setRawMode) input.setRawMode(true);
    input.setEncoding?.('utf8');
    input.on('data', onData);
    input.resume();
    output.on('resize', draw);
    draw();
    void refresh();
    timer = setInterval(() => void refresh(), options.intervalMs);
    await done;
  } finally {
    if (timer) clearInterval(timer);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('SIGINT', onSignal);
    process.off('exit', restore);
    restore();
  }
}
