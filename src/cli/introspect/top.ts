// `metalfleet top`, the pure half: the data of one refresh, one frame of text from it, and what a
// key press does. No terminal here, so a test checks a frame at 80x24 line by line.
import { PROVISIONING_STATES } from '../../api/index.ts';
import { MAAS_MACHINE_STATES } from '../../api/index.ts';
import { formatDuration, formatStall, oneLine, renderTable, truncate, type Column } from './format.ts';
import type { ActorRow, HostRow, OnNode, PoolRow } from './rows.ts';
import { usageOf, usageText, waitingOf } from './rows.ts';

export interface TopError {
  readonly key: string;
  readonly node: string;
  readonly state: string;
  readonly errorType: string;
  readonly errorMessage: string;
  /** How long the host has been in its state (the error came with it). */
  readonly sinceMs: number;
}

export interface TopData {
  /** Unix ms of the sample. */
  readonly at: number;
  /** Nodes that answered. */
  readonly nodes: readonly string[];
  readonly missing: readonly string[];
  readonly hostsTotal: number;
  /** Hosts per state, in lifecycle order. */
  readonly states: ReadonlyArray<readonly [string, number]>;
  readonly provisioned: number;
  /** Hosts per second reaching provisioned (or Deployed) over the last `throughputWindowMs`. */
  readonly throughput: number;
  readonly throughputWindowMs: number;
  readonly pools: ReadonlyArray<OnNode<PoolRow>>;
  readonly actors: ReadonlyArray<OnNode<ActorRow>>;
  /** Newest first. */
  readonly errors: readonly TopError[];
  /** Something to say instead of (or above) the data: a node missing, NATS down. */
  readonly problem?: string;
}

export const SORT_KEYS = ['depth', 'high', 'processed', 'restarts'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface FrameOptions {
  readonly width: number;
  readonly height: number;
  readonly sort: SortKey;
  /** Applied filter: rows of the mailbox and error lists must contain it (case-insensitive). */
  readonly filter: string;
  /** The filter being typed after `/`, or null. */
  readonly editing?: string | null;
}

// ---- data -----------------------------------------------------------------------------------

const DONE_STATES = new Set<string>(['provisioned', MAAS_MACHINE_STATES.Deployed]);
const STATE_ORDER: readonly string[] = [...PROVISIONING_STATES, ...Object.values(MAAS_MACHINE_STATES)];

function stateRank(state: string): number {
  const i = STATE_ORDER.indexOf(state);
  return i === -1 ? STATE_ORDER.length : i;
}

/** Hosts per state in lifecycle order, then unknown states by name. */
export function countStates(hosts: ReadonlyArray<Pick<HostRow, 'state'>>): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const h of hosts) counts.set(h.state, (counts.get(h.state) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => stateRank(a) - stateRank(b) || a.localeCompare(b));
}

/** One TopData from the rows the nodes returned. */
export function summarize(input: {
  at: number;
  nodes: readonly string[];
  missing: readonly string[];
  hosts: ReadonlyArray<OnNode<HostRow>>;
  actors: ReadonlyArray<OnNode<ActorRow>>;
  pools: ReadonlyArray<OnNode<PoolRow>>;
  throughputWindowMs?: number;
  problem?: string;
}): TopData {
  const windowMs = input.throughputWindowMs ?? 10_000;
  const done = input.hosts.filter((h) => DONE_STATES.has(h.state));
  // From stateSinceMs rather than the difference of two samples: right from the first frame,
  // and a host that moves to another node on the way is not counted twice.
  const recent = done.filter((h) => h.stateSinceMs <= windowMs).length;
  const errors = input.hosts
    .filter((h) => h.errorType !== '')
    .map((h) => ({ key: h.key, node: h.node, state: h.state, errorType: h.errorType, errorMessage: h.errorMessage ?? '', sinceMs: h.stateSinceMs }))
    .sort((a, b) => a.sinceMs - b.sinceMs || a.key.localeCompare(b.key));
  return {
    at: input.at,
    nodes: input.nodes,
    missing: input.missing,
    hostsTotal: input.hosts.length,
    states: countStates(input.hosts),
    provisioned: done.length,
    throughput: recent / (windowMs / 1_000),
    throughputWindowMs: windowMs,
    pools: input.pools,
    actors: input.actors,
    errors,
    ...(input.problem !== undefined ? { problem: input.problem } : {}),
  };
}

// ---- frame ----------------------------------------------------------------------------------

function matches(filter: string, ...fields: ReadonlyArray<string | null | undefined>): boolean {
  if (filter === '') return true;
  const needle = filter.toLowerCase();
  return fields.some((f) => f?.toLowerCase().includes(needle));
}

export function sortActors(actors: ReadonlyArray<OnNode<ActorRow>>, sort: SortKey): Array<OnNode<ActorRow>> {
  const key: Record<SortKey, (a: ActorRow) => number> = {
    depth: (a) => a.mailboxDepth,
    high: (a) => a.highWater,
    processed: (a) => a.processed,
    restarts: (a) => a.restarts,
  };
  const primary = key[sort];
  return [...actors].sort((a, b) => primary(b) - primary(a) || b.mailboxDepth - a.mailboxDepth || b.processed - a.processed || a.path.localeCompare(b.path));
}

/** `[#####.....]`: a pool's use, `width` characters in all. */
export function bar(used: number, limit: number | null, width: number): string {
  const inner = Math.max(1, width - 2);
  if (limit === null || limit <= 0) return `[${'~'.repeat(inner)}]`.slice(0, width);
  const filled = Math.min(inner, Math.round((used / limit) * inner));
  return `[${'#'.repeat(filled)}${'.'.repeat(inner - filled)}]`;
}

/** Tokens laid into at most `maxLines` lines of `width`; what does not fit is counted as "+N". */
function flow(tokens: readonly string[], width: number, maxLines: number, lead: string): string[] {
  const lines: string[] = [];
  let current = lead;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    const sep = current === lead || current.trim() === '' ? '' : '  ';
    if ((current + sep + token).length <= width || current.trim() === lead.trim()) {
      current += sep + token;
      continue;
    }
    if (lines.length === maxLines - 1) {
      current += `  +${tokens.length - i} more`;
      break;
    }
    lines.push(current);
    current = ' '.repeat(lead.length) + token;
  }
  lines.push(current);
  return lines;
}

/** `text` in lines of at most `width`, broken at spaces where it can, at most `maxLines` (the last one cut). */
function wrap(text: string, width: number, maxLines: number, indent: string): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest !== '' && lines.length < maxLines - 1 && [...rest].length > width) {
    const room = [...rest].slice(0, width).join('');
    const cut = room.lastIndexOf(' ');
    const head = cut > indent.length ? room.slice(0, cut) : room;
    lines.push(head);
    rest = indent + rest.slice(head.length).trimStart();
  }
  if (rest.trim() !== '') lines.push(rest);
  return lines;
}

const clockOf = (at: number): string => new Date(at).toISOString().slice(11, 19);

/** One screen: exactly `height` lines, none longer than `width`. */
export function renderFrame(data: TopData | null, options: FrameOptions): string[] {
  const { width, height, sort, filter } = options;
  const out: string[] = [];
  const nodesPart = data ? `nodes ${data.nodes.length}${data.missing.length > 0 ? ` (${data.missing.length} missing)` : ''}` : 'connecting';
  const header = `metalfleet top  ${nodesPart}  hosts ${data?.hostsTotal ?? 0}  ${data ? `${clockOf(data.at)} UTC` : ''}`;
  const right = `sort:${sort}${filter ? ` filter:${JSON.stringify(filter)}` : ''}`;
  out.push(header.length + right.length + 2 <= width ? header + ' '.repeat(width - header.length - right.length) + right : `${header}  ${right}`);

  const body: string[] = [];
  // Up to four lines: the cause ("jetstream is not enabled") comes last and was cut off at the width.
  if (data?.problem) body.push(...wrap(`! ${oneLine(data.problem)}`, width, 4, '  '));
  if (data) {
    body.push(...flow(data.states.map(([s, n]) => `${s || 'none'} ${n}`), width, 2, 'STATES  '));
    body.push(`THROUGHPUT  ${data.throughput.toFixed(1)} hosts/s to provisioned (last ${formatDuration(data.throughputWindowMs)})   provisioned ${data.provisioned}/${data.hostsTotal}`);
  } else {
    body.push('waiting for the first answer...');
  }

  // Capacity: one line per pool, at most 3 (the rest counted).
  const pools = data?.pools ?? [];
  body.push('', `CAPACITY${pools.length === 0 ? '  (no broker answered)' : ''}`);
  const poolWidth = Math.min(16, Math.max(4, ...pools.map((p) => p.pool.length)));
  const shownPools = pools.length > 3 ? pools.slice(0, 2) : pools;
  for (const p of shownPools) {
    const waiting = waitingOf(p);
    const stalled = (p.stallSeconds ?? 0) > 0 ? `  STALLED ${formatStall(p.stallSeconds)}` : '';
    const text = `${usageText(p, 'no limit')} in use  ${waiting} waiting${waiting > 0 ? `  longest ${formatDuration(p.longestWaitMs)}` : ''}${stalled}`;
    body.push(`  ${truncate(p.pool, poolWidth).padEnd(poolWidth)} ${bar(usageOf(p).bounded, p.limit, 22)} ${text}`);
  }
  if (pools.length > 3) body.push(`  +${pools.length - 2} more pools (metalfleet capacity)`);

  // Lists share what is left: errors up to a third, mailboxes the rest.
  const actors = sortActors((data?.actors ?? []).filter((a) => matches(filter, a.path, a.kind, a.node, a.lastError)), sort);
  const errors = (data?.errors ?? []).filter((e) => matches(filter, e.key, e.node, e.errorType, e.errorMessage, e.state));
  const fixed = 1 /* header */ + body.length + 3 /* blank, title, column header */ + 2 /* blank, title */ + 1 /* footer */;
  const free = Math.max(0, height - fixed);
  const errorRows = Math.min(Math.max(errors.length, 1), Math.max(1, Math.floor(free / 3)));
  const actorRows = Math.max(0, free - errorRows);

  body.push('', `MAILBOXES  ${actors.length} actors, busiest by ${sort}`);
  // The node's name whole (a StatefulSet's `metalfleet-controller-0` cut to 10 named no node);
  // the path gives up the room, as the one column that can.
  const nodeWidth = Math.max(4, ...actors.slice(0, actorRows).map((a) => [...a.node].length));
  const columns: Array<Column<OnNode<ActorRow>>> = [
    { header: 'PATH', value: (a) => a.path, max: Math.max(12, width - 42 - nodeWidth) },
    { header: 'KIND', value: (a) => a.kind, max: 10 },
    { header: 'DEPTH', value: (a) => String(a.mailboxDepth), align: 'right' },
    { header: 'HIGH', value: (a) => String(a.highWater), align: 'right' },
    { header: 'DONE', value: (a) => String(a.processed), align: 'right' },
    { header: 'RST', value: (a) => String(a.restarts), align: 'right' },
    { header: 'NODE', value: (a) => a.node },
  ];
  const table = renderTable(columns, actors.slice(0, actorRows), { width });
  body.push(...table.map((l) => `${l}`));
  for (let i = table.length - 1; i < actorRows; i++) body.push(i === 0 && actors.length === 0 ? (filter ? '  (no actor matches the filter)' : '  (none)') : '');

  body.push('', `RECENT ERRORS  ${errors.length}`);
  if (errors.length === 0) body.push(filter ? '  (none match the filter)' : '  (none)');
  for (const e of errors.slice(0, errorRows)) {
    body.push(`  ${formatDuration(e.sinceMs).padStart(6)}  ${e.key}  ${e.errorType}${e.errorMessage ? `: ${e.errorMessage}` : ''}  (${e.node})`);
  }

  out.push(...body);
  const footer = options.editing !== undefined && options.editing !== null
    ? `/${options.editing}_   Enter apply  Esc clear`
    : `s sort (${sort})  / filter${filter ? ` (${filter})` : ''}  q quit${data?.missing.length ? `   no answer: ${data.missing.join(', ')}` : ''}`;
  // Cut to the screen, keeping the footer on the last line.
  const lines = out.slice(0, Math.max(0, height - 1)).map((l) => truncate(oneLine(l), width));
  while (lines.length < height - 1) lines.push('');
  if (height > 0) lines.push(truncate(oneLine(footer), width));
  return lines;
}

// ---- keys -----------------------------------------------------------------------------------

export interface KeyState {
  readonly sort: SortKey;
  readonly filter: string;
  /** The filter being typed after `/`, or null. */
  readonly editing: string | null;
}

export const INITIAL_KEYS: KeyState = { sort: 'depth', filter: '', editing: null };

/** What a chunk of input from the terminal (raw mode) does: the new state, and whether to quit. */
export function handleKeys(state: KeyState, input: string): { state: KeyState; quit: boolean } {
  let s = state;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] ?? '';
    // Ctrl-C quits whatever mode we are in.
    if (ch === '\u0003') return { state: s, quit: true };
    if (ch === '\u001b') {
      // An escape sequence (arrows, function keys) is skipped whole; a lone Esc clears the filter.
      if (input[i + 1] === '[' || input[i + 1] === 'O') {
        i += 2;
        while (i < input.length && !/[A-Za-z~]/.test(input[i] ?? '')) i++;
        continue;
      }
      s = { ...s, filter: '', editing: null };
      continue;
    }
    if (s.editing !== null) {
      if (ch === '\r' || ch === '\n') s = { ...s, filter: s.editing, editing: null };
      else if (ch === '\u007f' || ch === '\b') s = { ...s, editing: [...s.editing].slice(0, -1).join('') };
      else if (ch >= ' ') s = { ...s, editing: s.editing + ch };
      continue;
    }
    if (ch === 'q' || ch === 'Q') return { state: s, quit: true };
    if (ch === 's') s = { ...s, sort: SORT_KEYS[(SORT_KEYS.indexOf(s.sort) + 1) % SORT_KEYS.length] ?? 'depth' };
    else if (ch === '/') s = { ...s, editing: '' };
  }
  return { state: s, quit: false };
}
