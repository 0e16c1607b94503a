import test from 'ava';
import { atState, calls, tick } from '../support/bmh.ts';

// reference/bmo.md §1.7: the detached annotation is `""` or {"deleteAction":"delay"|"delete","force":bool}.
// BMO's webhook refuses another deleteAction, but the controller reads the annotation as Go decodes
// it: a value that decodes keeps its force, and a deleteAction other than "delay" deletes. A host
// that got past validation with {"deleteAction":"later","force":true} (no webhook, or set before
// one ran) was detached here without force, so in a state that needs it the detach never came.
const DETACHED = 'baremetalhost.metal3.io/detached';

test('bmh detached - an unknown deleteAction keeps the annotation\'s force: a provisioning host is detached at once', (t) => {
  const s = tick(atState('provisioning', { annotations: { [DETACHED]: '{"deleteAction":"later","force":true}' } }));
  t.deepEqual(calls(s.effects), [{ op: 'detach', force: true }]);
});

test('bmh detached - an unknown deleteAction without force waits for a settled state, as delete would', (t) => {
  const s = tick(atState('provisioning', { annotations: { [DETACHED]: '{"deleteAction":"later"}' } }));
  t.false(calls(s.effects).some((c) => c.op === 'detach'));
});

test('bmh detached - a value that is not JSON still detaches with defaults (no force)', (t) => {
  const s = tick(atState('provisioning', { annotations: { [DETACHED]: '{force:true' } }));
  t.false(calls(s.effects).some((c) => c.op === 'detach'));
  const settled = tick(atState('available', { annotations: { [DETACHED]: '{force:true' } }));
  t.deepEqual(calls(settled.effects).filter((c) => c.op === 'detach'), [{ op: 'detach', force: false }]);
});
