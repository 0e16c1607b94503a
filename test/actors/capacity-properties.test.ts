import test from 'ava';
import fc from 'fast-check';
import { PoolBook, type Grant } from '../../src/actors/capacity/index.ts';

// A deliberately naive model (arrays, linear scans) of what the book promises; the book must agree
// with it step by step, and both must keep the invariants.
const TTL = 1_000;
const HOLDERS = ['h0', 'h1', 'h2', 'h3', 'h4', 'h5'];
const POOLS = ['ironic:a', 'ironic:b', 'maas:c'];
const LIMITS: Record<string, number> = { 'ironic:a': 1, 'ironic:b': 2 };
const DEFAULT_LIMIT = 3;

type Op =
  | { t: 'acquire'; h: string; p: string; exempt: boolean; dt: number }
  | { t: 'release'; h: string; p: string; dt: number }
  | { t: 'renew'; h: string; p: string; dt: number }
  | { t: 'expire'; dt: number }
  | { t: 'setLimit'; p: string; limit: number; dt: number };

const holder = fc.constantFrom(...HOLDERS);
const pool = fc.constantFrom(...POOLS);
const dt = fc.integer({ min: 0, max: 400 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('acquire' as const), h: holder, p: pool, exempt: fc.integer({ min: 0, max: 4 }).map((n) => n === 0), dt }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('release' as const), h: holder, p: pool, dt }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('renew' as const), h: holder, p: pool, dt }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('expire' as const), dt }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('setLimit' as const), p: pool, limit: fc.integer({ min: 0, max: 4 }), dt }) },
);

interface MGrant { holder: string; exempt: boolean; grantId: string; expiresAt: number; order: number }
interface MPool { limit: number; grants: MGrant[]; queue: string[] }

class Model {
  pools = new Map<string, MPool>();
  seq = 0;
  order = 0;

  pool(name: string): MPool {
    let p = this.pools.get(name);
    if (!p) {
      const l = LIMITS[name] ?? DEFAULT_LIMIT;
      p = { limit: l === 0 ? Infinity : l, grants: [], queue: [] };
      this.pools.set(name, p);
    }
    return p;
  }

  counted(p: MPool): number {
    return p.grants.filter((g) => !g.exempt).length;
  }

  grant(p: MPool, h: string, exempt: boolean, now: number): string {
    const g = { holder: h, exempt, grantId: `g-${++this.seq}`, expiresAt: now + TTL, order: ++this.order };
    p.grants.push(g);
    return g.grantId;
  }

  promote(p: MPool, now: number): string[] {
    const out: string[] = [];
    while (p.queue.length > 0 && this.counted(p) < p.limit) {
      const h = p.queue.shift()!;
      this.grant(p, h, false, now);
      out.push(h);
    }
    return out;
  }

  acquire(h: string, name: string, exempt: boolean, now: number): string {
    const p = this.pool(name);
    const g = p.grants.find((x) => x.holder === h);
    if (g) {
      if (now < g.expiresAt) {
        g.expiresAt = now + TTL;
        g.order = ++this.order;
      }
      return `granted ${g.grantId}`;
    }
    const i = p.queue.indexOf(h);
    if (i >= 0 && !exempt) return `queued ${i + 1}`;
    if (i >= 0) p.queue.splice(i, 1);
    if (exempt || (p.queue.length === 0 && this.counted(p) < p.limit)) return `granted ${this.grant(p, h, exempt, now)}`;
    p.queue.push(h);
    return `queued ${p.queue.length}`;
  }

  release(h: string, name: string, now: number): string {
    const p = this.pools.get(name);
    if (!p) return 'unknown';
    const i = p.queue.indexOf(h);
    if (i >= 0) {
      p.queue.splice(i, 1);
      return 'cancelled';
    }
    const j = p.grants.findIndex((g) => g.holder === h);
    if (j < 0) return 'unknown';
    p.grants.splice(j, 1);
    return `released -> ${this.promote(p, now).join(',')}`;
  }

  renew(h: string, name: string, now: number): string {
    const p = this.pools.get(name);
    if (p?.queue.includes(h)) return 'waiting';
    const g = p?.grants.find((x) => x.holder === h);
    if (!g || now >= g.expiresAt) return 'unknown';
    g.expiresAt = now + TTL;
    g.order = ++this.order;
    return `renewed ${g.expiresAt}`;
  }

  expire(now: number): string {
    const due: { name: string; g: MGrant }[] = [];
    for (const [name, p] of this.pools) for (const g of p.grants) if (g.expiresAt <= now) due.push({ name, g });
    due.sort((a, b) => a.g.expiresAt - b.g.expiresAt || a.g.order - b.g.order);
    const granted: string[] = [];
    for (const { name, g } of due) {
      const p = this.pools.get(name)!;
      p.grants.splice(p.grants.indexOf(g), 1);
      granted.push(...this.promote(p, now).map((h) => `${name}/${h}`));
    }
    return `lost ${due.map((d) => `${d.name}/${d.g.holder}`).join(',')} granted ${granted.join(',')}`;
  }

  setLimit(name: string, limit: number, now: number): string {
    const p = this.pool(name);
    p.limit = limit === 0 ? Infinity : limit;
    return this.promote(p, now).join(',');
  }
}

const names = (gs: readonly Grant<unknown>[]) => gs.map((g) => g.holder).join(',');
const paths = (gs: readonly Grant<unknown>[]) => gs.map((g) => `${g.pool}/${g.holder}`).join(',');

function apply(book: PoolBook, o: Op, now: number): string {
  switch (o.t) {
    case 'acquire': {
      const r = book.acquire(o.h, o.p, 'provisioning', o.exempt, now);
      return r.status === 'granted' ? `granted ${r.grant.grantId}` : `queued ${r.position}`;
    }
    case 'release': {
      const r = book.release(o.h, o.p, now);
      return r.outcome === 'released' ? `released -> ${names(r.granted)}` : r.outcome;
    }
    case 'renew': {
      const r = book.renew(o.h, o.p, now);
      return r.status === 'renewed' ? `renewed ${r.grant.expiresAt}` : r.status;
    }
    case 'expire': {
      const r = book.expire(now);
      return `lost ${paths(r.lost)} granted ${paths(r.granted)}`;
    }
    case 'setLimit':
      return names(book.setLimit(o.p, o.limit, now));
  }
}

test('capacity - random operation sequences agree with the model and never exceed a limit', (t) => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
      const book = new PoolBook({ limits: LIMITS, defaultLimit: DEFAULT_LIMIT, ttlMs: TTL });
      const model = new Model();
      let now = 0;
      const before = new Map<string, number>();
      for (const o of ops) {
        now += o.dt;
        const got = apply(book, o, now);
        const want = (() => {
          switch (o.t) {
            case 'acquire': return model.acquire(o.h, o.p, o.exempt, now);
            case 'release': return model.release(o.h, o.p, now);
            case 'renew': return model.renew(o.h, o.p, now);
            case 'expire': return model.expire(now);
            case 'setLimit': return model.setLimit(o.p, o.limit, now);
          }
        })();
        if (got !== want) throw new Error(`${JSON.stringify(o)} at ${now}: book says "${got}", model "${want}"`);

        for (const f of book.figures(now).pools) {
          const seen = [...f.holders.map((h) => h.holder), ...f.queue.map((w) => w.holder)];
          if (new Set(seen).size !== seen.length) throw new Error(`${f.pool}: a holder appears twice: ${seen.join(',')}`);
          // Over the limit only after a lowered limit, and then it may only shrink.
          const prev = before.get(f.pool) ?? 0;
          if (f.inUse > f.limit && f.inUse > prev) throw new Error(`${f.pool}: ${f.inUse} in use > limit ${f.limit}`);
          before.set(f.pool, f.inUse);
          if (f.waiting > 0 && f.inUse < f.limit) throw new Error(`${f.pool}: ${f.waiting} waiting beside a free slot`);
          if (f.inUse !== f.holders.filter((h) => !h.exempt).length) throw new Error(`${f.pool}: inUse miscounted`);
          const m = model.pool(f.pool);
          if (f.queue.map((w) => w.holder).join(',') !== m.queue.join(',')) throw new Error(`${f.pool}: queue differs from model`);
        }
      }

      // Everyone still waiting is granted, in queue order, once every holder lets go.
      const figures = book.figures(now);
      for (const f of figures.pools) {
        const expected = f.queue.map((w) => w.holder);
        const granted: string[] = [];
        let holding = f.holders.map((h) => h.holder);
        for (let round = 0; holding.length > 0; round++) {
          if (round > HOLDERS.length + 1) throw new Error(`${f.pool}: waiters never drained`);
          const next: string[] = [];
          for (const h of holding) for (const g of book.release(h, f.pool, now).granted) next.push(g.holder);
          granted.push(...next);
          holding = next;
        }
        if (granted.join(',') !== expected.join(',')) throw new Error(`${f.pool}: granted ${granted.join(',')}, queue was ${expected.join(',')}`);
      }
      const end = book.summary();
      if (end.inUse + end.exempt + end.waiting !== 0) throw new Error(`left behind: ${JSON.stringify(end)}`);
      return true;
    }),
    { numRuns: 500 },
  );
  t.pass();
});
