// reboot.metal3.io and baremetalhost.metal3.io/detached with a key given twice in the same
// spelling. BMO's json.Unmarshal decodes every occurrence into the field, in order: a value of the
// wrong type is an error even when a later one fits, and a later null leaves the field as the
// earlier one set it. JSON.parse keeps only the last occurrence, which hid both from the webhook
// (and from the controller's reading of the annotation).
import test from 'ava';
import { checkRebootAnnotation, parseDetachedAnnotation, parseRebootAnnotation } from '../../src/api/bmh/annotations.ts';
import { host } from '../support/admission-host.ts';
import { admissionReview, fileTls, review, serve } from './support.ts';

const tls = fileTls();

const withAnnotation = (key: string, value: string) => host((h) => { h.metadata.annotations = { [key]: value }; });

test('webhook annotations - a reboot value of the wrong type is denied even when a later key for the same field fits', async (t) => {
  const { server } = await serve(t, tls.files);
  const cases: Array<[string, string]> = [
    ['{"mode":5,"mode":"hard"}', 'failed to unmarshal the data from the reboot.metal3.io annotation: "mode" must be a string, not number'],
    ['{"force":"yes","force":true}', 'failed to unmarshal the data from the reboot.metal3.io annotation: "force" must be a boolean, not string'],
    ['{"mode":"hard","force":[],"force":false}', 'failed to unmarshal the data from the reboot.metal3.io annotation: "force" must be a boolean, not array'],
  ];
  for (const key of ['reboot.metal3.io', 'reboot.metal3.io/phase1']) {
    for (const [value, reason] of cases) {
      const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', withAnnotation(key, value)));
      t.false(response.allowed, `${key}: ${value}`);
      t.deepEqual(response.status?.details?.causes, [{ reason: 'FieldValueInvalid', message: reason, field: `metadata.annotations[${key}]` }], value);
    }
  }
});

test('webhook annotations - a later null for a reboot field leaves what the earlier key set', async (t) => {
  const { server } = await serve(t, tls.files);
  // Go keeps "medium", which is not a mode.
  const denied = await review(server.url, tls.pki.ca, admissionReview('CREATE', withAnnotation('reboot.metal3.io', '{"mode":"medium","mode":null}')));
  t.false(denied.response.allowed);
  t.deepEqual(denied.response.status?.details?.causes.map((c) => c.message), ['invalid mode in the reboot.metal3.io annotation, allowed are "hard", "soft" or ""']);
  // Go keeps "hard": allowed, and the controller reboots hard.
  const hard = '{"mode":"hard","mode":null,"force":true,"force":null}';
  t.true((await review(server.url, tls.pki.ca, admissionReview('CREATE', withAnnotation('reboot.metal3.io', hard)))).response.allowed);
  t.deepEqual(parseRebootAnnotation(hard), { mode: 'hard', force: true, malformed: false });
});

test('reboot annotation - the controller reads duplicate keys as BMO does', (t) => {
  // The type error is reported (an event), and the mode the valid occurrence set is used, as BMO's
  // getRebootAnnotationArguments returns what json.Unmarshal decoded besides the error.
  t.deepEqual(parseRebootAnnotation('{"mode":5,"mode":"hard"}'), { mode: 'hard', force: false, malformed: true });
  t.deepEqual(parseRebootAnnotation('{"mode":"hard","mode":5}'), { mode: 'hard', force: false, malformed: true });
  t.deepEqual(parseRebootAnnotation('{"force":"yes","force":true}'), { mode: 'soft', force: true, malformed: true });
  t.is(checkRebootAnnotation('reboot.metal3.io', '{"mode":"hard","mode":"soft"}'), null);
});

test('detached annotation - duplicate keys are decoded as BMO decodes them', (t) => {
  // BMO's getDetachedAnnotation: an unmarshal error means no arguments at all (no delay, no force).
  const forced = parseDetachedAnnotation('{"deleteAction":"delay","force":"yes","force":true}');
  t.false(forced.ok);
  if (!forced.ok) t.is(forced.error.reason, 'unable to parse the content of the detached annotation: "force" must be a boolean, not string');
  // A later null leaves deleteAction as "delay".
  t.deepEqual(parseDetachedAnnotation('{"deleteAction":"delay","deleteAction":null}'), { ok: true, value: { deleteAction: 'delay', force: false } });
  t.deepEqual(parseDetachedAnnotation('{"deleteAction":"delete","deleteAction":"delay"}'), { ok: true, value: { deleteAction: 'delay', force: false } });
});
