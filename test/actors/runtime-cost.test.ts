// The runtime's own cost per message, as counts that do not depend on the machine's load: the
// async resources a tell creates (each one is allocation and async-hooks bookkeeping per message).
import { createHook } from 'node:async_hooks';
import test from 'ava';
import { spawn, startSystem, tellExpress } from '../../src/actors/runtime/index.ts';
import type { Behavior } from '../../src/actors/runtime/index.ts';
import { waitFor } from '../support/wait.ts';

const counter: Behavior<number, number> = { kind: 'counter', init: () => 0, receive: (n, by) => n + by };

test('cost - an express tell to idle actors creates no AsyncResource per message', async (t) => {
  const system = startSystem({ name: 'cost', onError: () => {} });
  const refs = Array.from({ length: 50 }, (_, i) => spawn(system, `c${i}`, counter));
  const kinds = new Map<string, number>();
  const hook = createHook({ init: (_id, type) => void kinds.set(type, (kinds.get(type) ?? 0) + 1) });
  hook.enable();
  for (const ref of refs) tellExpress(ref, 1);
  await Promise.resolve();
  hook.disable();
  // Node's queueMicrotask makes one 'Microtask' AsyncResource per call.
  t.is(kinds.get('Microtask') ?? 0, 0, `async resources created: ${JSON.stringify([...kinds])}`);
  await waitFor(() => refs.every((r) => (r as unknown as { state: number }).state === 1));
  system.stop();
});
