// The python client checks (test/sim/**/*.py) print one JSON object a line, `{"check": NAME, ...}`,
// with `error`/`trace` when the check raised. `checksFrom` reads them into a lookup that fails
// the test, naming the check, where one printed nothing or raised.
export type Check = Record<string, unknown> & { check: string; error?: string; trace?: string };

export interface Checks<T> {
  (name: string): T;
  /** How many checks reported. */
  readonly count: number;
}

export function checksFrom<T extends Check = Check>(out: string): Checks<T> {
  const seen = new Map<string, T>();
  for (const line of out.split('\n').filter((l) => l.trim() !== '')) {
    const s = JSON.parse(line) as T;
    seen.set(s.check, s);
  }
  const get = (name: string): T => {
    const s = seen.get(name);
    if (!s) throw new Error(`check ${name} printed nothing`);
    if (s.error !== undefined) throw new Error(`check ${name} raised ${s.error}\n${String(s.trace ?? '')}`);
    return s;
  };
  return Object.assign(get, { count: seen.size });
}
