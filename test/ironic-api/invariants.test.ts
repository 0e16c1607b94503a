import test from 'ava';
import fc from 'fast-check';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { raw } from '../support/ironic-api/raw.ts';
import { STABLE, transition } from '../support/ironic-api/state-machine.ts';
import { assertShowingCause } from '../support/fast-check.ts';

// Random provision requests against the server (manual clock, random advances between them):
// it never answers 5xx, accepts a verb exactly when states.py has the transition from the
// current state (and the node is not locked), and a settled node is in a stable or failed state
// with no reservation.

const VERBS = ['manage', 'provide', 'inspect', 'active', 'deleted', 'clean', 'adopt', 'service', 'abort', 'rebuild', 'undeploy'] as const;
const STEPS = { clean_steps: [{ interface: 'bios', step: 'factory_reset' }], service_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'BootMode', value: 'Bios' }] } }] };
const EVENT: Record<string, string> = { active: 'deploy', deleted: 'delete', undeploy: 'delete' };

test('ironic-api invariants - random verbs: no 5xx, acceptance follows the state machine, settled nodes are unlocked', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87', clock: 'manual' });
  t.teardown(() => s.close());
  let seq = 0;
  const answered = new Map<number, number>();
  await assertShowingCause(
    fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...VERBS), fc.nat(3), fc.boolean()), { minLength: 1, maxLength: 20 }), async (moves) => {
      const name = `n${seq++}`;
      await raw(s.url, 'POST', '/v1/nodes', { version: '1.87', body: { name, driver: 'fake-hardware' } });
      for (const [verb, advances, failStep] of moves) {
        const before = s.node(name);
        if (!before) throw new Error('node vanished');
        const clear = failStep ? s.failStep(verb === 'clean' ? 'bios.factory_reset' : 'bios.apply_configuration', { node: name }) : () => undefined;
        const body = { target: verb, ...(verb === 'clean' ? { clean_steps: STEPS.clean_steps } : {}), ...(verb === 'service' ? { service_steps: STEPS.service_steps } : {}) };
        const a = await raw(s.url, 'PUT', `/v1/nodes/${name}/states/provision`, { version: '1.87', body });
        answered.set(a.status, (answered.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${verb}: ${a.status} ${a.body}`);
        const allowed = transition(before.provisionState as never, EVENT[verb] ?? verb, 87) !== null;
        const locked = before.fields.reservation !== null;
        const inMaintenance = before.fields.maintenance === true && (verb === 'clean' || verb === 'service' || verb === 'active' || verb === 'rebuild');
        const expected = allowed && !locked && !inMaintenance ? 202 : locked ? 409 : 400;
        if (a.status !== expected) throw new Error(`${verb} from ${before.provisionState} (locked ${String(locked)}): ${a.status} ${a.message}, expected ${expected}`);
        for (let i = 0; i < advances; i++) s.advance(name);
        clear();
      }
      s.settle();
      const n = s.node(name);
      if (!n) throw new Error('node vanished');
      if (n.fields.reservation !== null) throw new Error(`settled in ${n.provisionState} but locked`);
      const settledStates = new Set<string>([...STABLE, 'clean failed', 'service failed', 'deploy failed', 'inspect failed', 'adopt failed']);
      if (!settledStates.has(n.provisionState)) throw new Error(`settled in ${n.provisionState}`);
      if (STABLE.has(n.provisionState as never) && n.targetProvisionState !== null) throw new Error(`${n.provisionState} with target ${n.targetProvisionState}`);
      // Take the node out of maintenance for the next run's sake: nothing is shared but the server.
      await raw(s.url, 'DELETE', `/v1/nodes/${name}/maintenance`, { version: '1.87' });
    }),
    { numRuns: 60 },
  );
  // Not vacuous: verbs were accepted, refused and met a locked node.
  t.true((answered.get(202) ?? 0) > 0 && (answered.get(400) ?? 0) > 0 && (answered.get(409) ?? 0) > 0, JSON.stringify([...answered]));
});
