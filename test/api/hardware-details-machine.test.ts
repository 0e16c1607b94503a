import test from 'ava';
import { atState, tick } from '../support/bmh.ts';

// The machine reads inspect.metal3.io/hardwaredetails with the parse admission uses
// (src/api/bmh/hardware-details.ts), as BMO's controller and webhook share one decoder.

const KEY = 'inspect.metal3.io/hardwaredetails';

test('hardware details - the machine agrees: unknown keys are not copied to status.hardware, known ones are', (t) => {
  const at = (value: string) => tick(atState('available', { spec: { image: undefined, inspectionMode: 'disabled' }, annotations: { [KEY]: value } }));
  const refused = at('{"ramMebibytes":4096,"gpu":1}');
  t.is(refused.state.host.status.hardware, undefined);
  t.true(refused.effects.some((e) => e.type === 'event' && e.reason === 'InvalidAnnotationValue' && e.message.includes('unknown field "gpu"')));
  t.true(refused.effects.some((e) => e.type === 'removeAnnotation' && e.key === KEY));
  const taken = at('{"ramMebibytes":4096,"nics":[{"name":"eth0","pxe":true}]}');
  t.is(taken.state.host.status.hardware?.ramMebibytes, 4096);
});
