import test from 'ava';
import { parseHardwareDetailsAnnotation } from '../../src/api/bmh/annotations.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { host } from '../support/admission-host.ts';

// BMO reads inspect.metal3.io/hardwaredetails with json.Decoder.Decode, in its webhook and its
// controller alike: one JSON value is read and whatever follows it is never looked at. So a value
// with text after its object (two objects pasted together, a stray word) is admitted, and the
// first object is the hardware details.

test('hardwaredetails first value - text after the object is ignored, as Go\'s Decoder ignores it', (t) => {
  for (const value of ['{"hostname":"node-1"} trailing words', '{"hostname":"node-1"}{"hostname":"node-2"}', '{"hostname":"node-1"}\n{"bogus":1}', '{"hostname":"node-1"}x']) {
    const r = parseHardwareDetailsAnnotation(value);
    t.true(r.ok, value);
    if (r.ok) t.deepEqual(r.value, { hostname: 'node-1' }, value);
  }
});

test('hardwaredetails first value - the first object is still decoded strictly', (t) => {
  const r = parseHardwareDetailsAnnotation('{"bogus":1} {"hostname":"node-2"}');
  t.false(r.ok);
  if (!r.ok) t.regex(r.error.reason, /unknown field "bogus"/);
  t.false(parseHardwareDetailsAnnotation('{"hostname":"node-1" trailing').ok);
});

test('hardwaredetails first value - the webhook admits a host whose details have trailing text', (t) => {
  const h = host((x) => {
    x.spec.inspectionMode = 'disabled';
    x.metadata.annotations = { 'inspect.metal3.io/hardwaredetails': '{"cpu":{"arch":"x86_64","count":8}} \n# from inventory.json' };
  });
  t.deepEqual(validateBareMetalHost(h), []);
});
