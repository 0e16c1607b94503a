// Every actor path starts with "/" (`/capacity-broker`, `/shard-3-e7/lab~worker-0`). A --prefix
// without it (`--prefix capacity`, `--prefix shard-3`) matched nothing, and `metalfleet actors`
// printed "no actors" with exit 0, as though the node had none. It is a usage mistake: one line
// naming the flag and the path it meant, exit 2, before connecting anywhere.
import test from 'ava';
import { freePort } from '../support/ironic.ts';
import { lines, metalfleet } from './run.ts';

test('introspect actors - a --prefix that is not a path is refused naming the flag and the path meant (exit 2)', async (t) => {
  // A port nobody listens on: a check that ran after connecting would fail with "cannot reach NATS".
  const port = await freePort();
  const r = await metalfleet('actors', '--prefix', 'capacity', '--nats', `nats://127.0.0.1:${port}`);
  t.is(r.code, 2, r.stderr);
  t.deepEqual(lines(r.stderr), ['metalfleet: --prefix: actor paths start with "/": "capacity" matches none; did you mean /capacity?']);
  t.is(r.stdout, '');
});
