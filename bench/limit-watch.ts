// Says who ran over the limit, when the backend runs more gated operations than there are slots.
// The fixture counts a node as busy from a gated call's arrival to the operation's end; each busy
// node should have one grant behind it. On a breach the bench reads the broker's holders at once
// and prints the busy hosts that hold no grant, with the node and shard epoch of the call that
// opened their operation: enough to tell a lapsed grant from a stale owner or an early release
// (a breach was once seen under heavy load and never explained, issue 30).
import type { FixtureCallRecord, FixtureGateEvent } from '../src/adapters/fixture/index.ts';

export interface OpenGate {
  readonly host: string;
  readonly op: string;
  readonly openedAt: number;
}

export interface Breach {
  readonly busy: number;
  readonly at: number;
  readonly open: readonly OpenGate[];
}

export interface LimitWatch {
  readonly onGate: (event: FixtureGateEvent) => void;
  /** Gate openings that took the backend past the limit. */
  breaches(): number;
}

// One explanation per burst: a breach of 65 against 50 is 15 openings, read once.
const EXPLAIN_EVERY_MS = 5_000;

export function limitWatch(limit: number, explain: (breach: Breach) => void): LimitWatch {
  const open = new Map<string, OpenGate>();
  let breaches = 0;
  let explainedAt = Number.NEGATIVE_INFINITY;
  return {
    onGate(e) {
      const at = performance.now();
      if (e.kind === 'closed') {
        open.delete(e.host);
        return;
      }
      open.set(e.host, { host: e.host, op: e.op, openedAt: at });
      if (e.busy <= limit) return;
      breaches++;
      if (at - explainedAt < EXPLAIN_EVERY_MS) return;
      explainedAt = at;
      explain({ busy: e.busy, at, open: [...open.values()] });
    },
    breaches: () => breaches,
  };
}

export interface GrantView {
  /** Holder names of the grants the broker lists as in use. */
  readonly holders: readonly string[];
  /** The node driving each host now, and its state there. */
  readonly driven: ReadonlyMap<string, { node: string; state: string; shard: number }>;
}

/** Lines naming each busy host without a grant and the call that made it busy. */
export function describeBreach(breach: Breach, calls: readonly FixtureCallRecord[], view: GrantView, startedAt: number): string[] {
  // Hosts hold grants under their key; other kinds' holders are qualified (`MaasMachine:ns/name`).
  const held = new Set(view.holders);
  const lastGated = new Map<string, FixtureCallRecord>();
  for (const c of calls) if (c.op === 'inspect' || c.op === 'provision' || c.op === 'deprovision') lastGated.set(c.host, c);
  const without = breach.open.filter((g) => !held.has(g.host));
  const lines = [`over the limit at ${((breach.at - startedAt) / 1000).toFixed(1)} s: ${breach.busy} busy at the backend, ${view.holders.length} grants listed, ${without.length} busy hosts hold none`];
  for (const g of without.slice(0, 20)) {
    const c = lastGated.get(g.host);
    const d = view.driven.get(g.host);
    const by = c ? `opened by ${c.op} from ${c.holder ?? 'no fence'} (shard ${c.shard ?? '-'}, epoch ${c.epoch ?? '-'})` : `opened by ${g.op}, call not in the log`;
    const now = d ? `driven now by ${d.node} (shard ${d.shard}) in ${d.state}` : 'driven by no node now';
    lines.push(`  ${g.host}: ${by} ${Math.round(breach.at - g.openedAt)} ms before; ${now}`);
  }
  return lines;
}
