import { MetalfleetError } from '../../../api/index.ts';
import { decode, encode } from '../../../bus/index.ts';
import type { KvBucket } from '../../../ports/index.ts';
import { KvConflict } from '../../../ports/index.ts';
import { duplicateHolder, emptyRecord, overGrant, POOL_KEY_PREFIX, PoolRecord, poolKey, poolOfKey } from './grant-record.ts';

/** A pool record and the KV revision it was read or written at (null: the key does not exist). */
export interface Versioned {
  readonly revision: number | null;
  readonly record: PoolRecord;
}

/** What a write wants to do to a record; null when there is nothing to write. */
export type Mutation<E> = (base: PoolRecord, now: number) => { readonly next: PoolRecord; readonly effect: E } | null;

/** A record written by a broker of a later epoch: this broker has been replaced. */
export class BrokerDeposed extends MetalfleetError {
  constructor(readonly epoch: number, readonly seen: number, readonly pool: string) {
    super('brokerDeposed', `capacity broker of epoch ${epoch} is deposed: pool ${pool} was written by epoch ${seen}`, true);
    this.name = 'BrokerDeposed';
  }
}

/** A pool record that does not parse: nothing is granted in that pool until someone repairs it. */
export class CorruptRecord extends MetalfleetError {
  constructor(readonly key: string, detail: string) {
    super('corruptRecord', `capacity: KV record ${key} is unreadable (${detail}); delete or fix the key to free the pool`, false);
    this.name = 'CorruptRecord';
  }
}

/** A write that would break the limit: a bug, refused before it reaches KV. */
export class OverGrant extends MetalfleetError {
  constructor(readonly pool: string, detail: string) {
    super('overGrant', `capacity: refused to write pool ${pool}: ${detail}`, false);
    this.name = 'OverGrant';
  }
}

// A conflict means another writer (a broker that has not noticed it was deposed) got in between;
// more than a few in a row would mean a livelock worth surfacing rather than spinning on.
const MAX_ATTEMPTS = 8;

/**
 * The pool records of one broker epoch. Every write is a compare-and-set against the revision its
 * content was computed from and passes `overGrant` against that same revision, so no interleaving
 * of writers can put more than `limit` live grants in a record. Writes carry the epoch, and a
 * record already written by a later epoch is never replaced: the deposed broker learns it here.
 */
export class GrantStore {
  constructor(readonly kv: KvBucket, readonly epoch: number) {}

  async pools(): Promise<string[]> {
    const keys = await this.kv.keys(`${POOL_KEY_PREFIX}>`);
    return keys.map(poolOfKey).filter((p): p is string => p !== null);
  }

  /** The pool's record, or an empty one with `defaultLimit` when the key is absent. */
  async read(pool: string, defaultLimit: number): Promise<Versioned> {
    const key = poolKey(pool);
    const entry = await this.kv.get(key);
    if (entry === null) return { revision: null, record: emptyRecord(pool, defaultLimit) };
    const decoded = decode(`kv.${key}`, entry.value, PoolRecord);
    if (!decoded.ok) throw new CorruptRecord(key, decoded.error.message);
    const record = decoded.value;
    if (record.pool !== pool) throw new CorruptRecord(key, `it names pool ${record.pool}`);
    const dup = duplicateHolder(record);
    if (dup !== null) throw new CorruptRecord(key, `holder ${dup} holds two grants`);
    if (record.epoch > this.epoch) throw new BrokerDeposed(this.epoch, record.epoch, pool);
    return { revision: entry.revision, record };
  }

  /**
   * Apply `mutate` to the current record and write it by CAS; on a conflict re-read and apply it
   * again to what is there now. `now` is read for every attempt, as the check must hold then.
   */
  async commit<E>(pool: string, current: Versioned, mutate: Mutation<E>, now: () => number): Promise<{ versioned: Versioned; effect: E | null }> {
    let base = current;
    for (let attempt = 1; ; attempt++) {
      const t = now();
      const change = mutate(base.record, t);
      if (change === null) return { versioned: base, effect: null };
      try {
        return { versioned: await this.put(pool, base, change.next, t), effect: change.effect };
      } catch (error) {
        if (!(error instanceof KvConflict) || attempt >= MAX_ATTEMPTS) throw error;
        base = await this.read(pool, base.record.limit);
      }
    }
  }

  /**
   * One compare-and-set of `next` (the epoch stamped) over `base`, the limit checked against
   * `base`; no retry. The broker folds a turn's changes into one of these and decides itself what
   * a conflict means; `commit` retries it over a re-read.
   */
  async put(pool: string, base: Versioned, next: PoolRecord, now: number): Promise<Versioned> {
    const record: PoolRecord = { ...next, epoch: this.epoch };
    const refused = overGrant(base.record, record, now);
    if (refused !== null) throw new OverGrant(pool, refused);
    return { revision: await this.write(pool, record, base.revision), record };
  }

  private write(pool: string, record: PoolRecord, revision: number | null): Promise<number> {
    const key = poolKey(pool);
    const bytes = encode(record);
    return revision === null ? this.kv.create(key, bytes) : this.kv.update(key, bytes, revision);
  }
}
