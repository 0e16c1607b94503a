// The fuzz tests' seed: fixed, so a run is repeatable and a failure can be replayed; another one
// with METALFLEET_FUZZ_SEED=<n> (and METALFLEET_FUZZ_RUNS=<n> for a longer run).

export const DEFAULT_FUZZ_SEED = 20261202;

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(value)}`);
  return n;
}

export function fuzzSeed(): number {
  return integer('METALFLEET_FUZZ_SEED', process.env.METALFLEET_FUZZ_SEED, DEFAULT_FUZZ_SEED);
}

/** `runs` scaled by METALFLEET_FUZZ_RUNS (a count that replaces it). */
export function fuzzRuns(runs: number): number {
  return integer('METALFLEET_FUZZ_RUNS', process.env.METALFLEET_FUZZ_RUNS, runs);
}

/** What to print on failure: how to replay this run. */
export function replayHint(seed: number): string {
  return `fuzz seed ${seed}: replay with METALFLEET_FUZZ_SEED=${seed}`;
}
