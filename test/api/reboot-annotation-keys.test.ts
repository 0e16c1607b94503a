// reboot.metal3.io is decoded as BMO decodes it (json.Unmarshal into RebootAnnotationArguments):
// each key goes to the field it matches, exactly or without regard to case, in order, so of two
// keys for the same field the later one counts, whatever their case.
import test from 'ava';
import { checkRebootAnnotation, parseRebootAnnotation } from '../../src/api/bmh/annotations.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { host } from '../support/admission-host.ts';

const KEY = 'reboot.metal3.io/capm3';

test('reboot annotation - of two keys for mode, the later one is checked, whatever their case', (t) => {
  const errors = (value: string) => validateBareMetalHost(host((h) => { h.metadata.annotations = { [KEY]: value }; })).map((e) => e.reason);
  t.deepEqual(errors('{"mode":"hard","Mode":"medium"}'), ['invalid mode in the reboot.metal3.io annotation, allowed are "hard", "soft" or ""']);
  t.deepEqual(errors('{"Mode":"medium","mode":"hard"}'), []);
  // A null leaves the field as the earlier key set it.
  t.is(checkRebootAnnotation(KEY, '{"MODE":"medium","mode":null}')?.reason, 'invalid mode in the reboot.metal3.io annotation, allowed are "hard", "soft" or ""');
});

test('reboot annotation - the controller reads the mode the webhook checked', (t) => {
  t.is(parseRebootAnnotation('{"mode":"soft","MODE":"hard"}').mode, 'hard');
  t.is(parseRebootAnnotation('{"Mode":"hard","mode":"soft"}').mode, 'soft');
  t.true(parseRebootAnnotation('{"force":true,"Force":"yes"}').malformed);
});
