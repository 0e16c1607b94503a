import test from 'ava';
import {
  DETACHED_ANNOTATION, HARDWARE_DETAILS_ANNOTATION, INSPECT_ANNOTATION, PAUSED_ANNOTATION, REBOOT_ANNOTATION, STATUS_ANNOTATION,
  checkRebootAnnotation, inspectionDisabled, isPaused, parseDetachedAnnotation, parseHardwareDetailsAnnotation, parseInspectAnnotation,
  parseRebootAnnotation, parseStatusAnnotation, rebootAnnotations, requestedReboot,
} from '../../src/api/bmh/annotations.ts';

test('annotations - constants are the BMO annotation names', (t) => {
  t.deepEqual(
    [PAUSED_ANNOTATION, DETACHED_ANNOTATION, STATUS_ANNOTATION, REBOOT_ANNOTATION, INSPECT_ANNOTATION, HARDWARE_DETAILS_ANNOTATION],
    ['baremetalhost.metal3.io/paused', 'baremetalhost.metal3.io/detached', 'baremetalhost.metal3.io/status', 'reboot.metal3.io', 'inspect.metal3.io', 'inspect.metal3.io/hardwaredetails'],
  );
});

test('annotations - an empty reboot value is a soft reboot', (t) => {
  t.deepEqual(parseRebootAnnotation(''), { mode: 'soft', force: false, malformed: false });
});

test('annotations - reboot JSON with mode and force', (t) => {
  t.deepEqual(parseRebootAnnotation('{"mode":"hard","force":true}'), { mode: 'hard', force: true, malformed: false });
  t.deepEqual(parseRebootAnnotation('{"mode":"soft"}'), { mode: 'soft', force: false, malformed: false });
  t.deepEqual(parseRebootAnnotation('{"Mode":"hard"}'), { mode: 'hard', force: false, malformed: false }, 'Go matches fields without case');
});

test('annotations - malformed reboot JSON is soft with a warning flag', (t) => {
  t.deepEqual(parseRebootAnnotation('hard'), { mode: 'soft', force: false, malformed: true });
  t.deepEqual(parseRebootAnnotation('{"mode":"hard"'), { mode: 'soft', force: false, malformed: true });
  t.deepEqual(parseRebootAnnotation('["hard"]'), { mode: 'soft', force: false, malformed: true });
});

test('annotations - a reboot field of the wrong type keeps the others, flagged', (t) => {
  t.deepEqual(parseRebootAnnotation('{"mode":"hard","force":"yes"}'), { mode: 'hard', force: false, malformed: true });
});

test('annotations - an unknown reboot mode reboots soft', (t) => {
  t.deepEqual(parseRebootAnnotation('{"mode":"warm"}'), { mode: 'soft', force: false, malformed: false });
});

test('annotations - rebootAnnotations lists base and suffixed ones', (t) => {
  const list = rebootAnnotations({
    'reboot.metal3.io/phase2': '{"mode":"hard"}',
    'reboot.metal3.io': '',
    'reboot.metal3.io.other': 'x',
    'unrelated/x': '',
    'reboot.metal3.io/broken': '{',
  });
  t.deepEqual(list, [
    { key: 'reboot.metal3.io', suffix: null, mode: 'soft', force: false, malformed: false },
    { key: 'reboot.metal3.io/broken', suffix: 'broken', mode: 'soft', force: false, malformed: true },
    { key: 'reboot.metal3.io/phase2', suffix: 'phase2', mode: 'hard', force: false, malformed: false },
  ]);
  t.deepEqual(rebootAnnotations(undefined), []);
});

test('annotations - requestedReboot: hard wins, force filters', (t) => {
  const a = { 'reboot.metal3.io': '', 'reboot.metal3.io/x': '{"mode":"hard"}' };
  t.deepEqual(requestedReboot(a, { expectForce: false }), { reboot: true, mode: 'hard' });
  t.deepEqual(requestedReboot(a, { expectForce: true }), { reboot: false, mode: 'soft' });
  t.deepEqual(requestedReboot({ 'reboot.metal3.io/y': '{"force":true}' }, { expectForce: true }), { reboot: true, mode: 'soft' });
});

test('annotations - checkRebootAnnotation follows the webhook', (t) => {
  t.is(checkRebootAnnotation('reboot.metal3.io', ''), null);
  t.is(checkRebootAnnotation('reboot.metal3.io', '{"mode":""}'), null);
  t.is(checkRebootAnnotation('reboot.metal3.io', '{"force":true}'), null);
  t.like(checkRebootAnnotation('reboot.metal3.io/a', '{"mode":"warm"}'), {
    path: 'metadata.annotations[reboot.metal3.io/a]',
    reason: 'invalid mode in the reboot.metal3.io annotation, allowed are "hard", "soft" or ""',
  });
  t.regex(checkRebootAnnotation('reboot.metal3.io', '{"force":"yes"}')?.reason ?? '', /^failed to unmarshal the data from the reboot\.metal3\.io annotation: "force" must be a boolean/);
});

test('annotations - detached: empty is delete without force', (t) => {
  t.deepEqual(parseDetachedAnnotation(''), { ok: true, value: { deleteAction: 'delete', force: false } });
});

test('annotations - detached: delay and force', (t) => {
  t.deepEqual(parseDetachedAnnotation('{"deleteAction":"delay","force":true}'), { ok: true, value: { deleteAction: 'delay', force: true } });
  t.deepEqual(parseDetachedAnnotation('{"deleteAction":"delete"}'), { ok: true, value: { deleteAction: 'delete', force: false } });
  t.deepEqual(parseDetachedAnnotation('{}'), { ok: true, value: { deleteAction: 'delete', force: false } });
});

test('annotations - detached: bad JSON and unknown actions are errors', (t) => {
  const bad = parseDetachedAnnotation('delay');
  t.false(bad.ok);
  if (!bad.ok) {
    t.is(bad.error.path, 'metadata.annotations[baremetalhost.metal3.io/detached]');
    t.regex(bad.error.reason, /^unable to parse the content of the detached annotation: invalid JSON/);
  }
  const unknown = parseDetachedAnnotation('{"deleteAction":"later"}');
  t.false(unknown.ok);
  if (!unknown.ok) t.is(unknown.error.reason, 'invalid deleteAction "later" in the baremetalhost.metal3.io/detached annotation, allowed are "delay" or "delete"');
});

test('annotations - status: a full status round-trips', (t) => {
  const status = {
    operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0,
    provisioning: { state: 'provisioned', ID: 'abc', image: { url: 'http://x/y.img', checksum: 'c' }, bootMode: 'UEFI' },
    goodCredentials: { credentials: { name: 'bmc', namespace: 'metal3' }, credentialsVersion: '12' },
    lastUpdated: '2026-01-01T00:00:00Z',
  };
  const r = parseStatusAnnotation(JSON.stringify(status));
  t.true(r.ok);
  if (r.ok) t.like(r.value, status);
});

test('annotations - status: missing fields get Go zero values, nulls are dropped', (t) => {
  const r = parseStatusAnnotation('{"operationalStatus":"discovered","operationHistory":{"inspect":{"start":null,"end":null}},"lastUpdated":null}');
  t.true(r.ok);
  if (r.ok) {
    t.like(r.value, { operationalStatus: 'discovered', errorMessage: '', errorCount: 0, poweredOn: false, provisioning: { state: '', ID: '' } });
    t.is(r.value?.lastUpdated, undefined);
  }
});

test('annotations - status: empty is no status', (t) => {
  t.deepEqual(parseStatusAnnotation(''), { ok: true, value: null });
});

test('annotations - status: strict JSON, known fields, valid values', (t) => {
  const reason = (v: string) => {
    const r = parseStatusAnnotation(v);
    return r.ok ? null : r.error.reason;
  };
  t.regex(reason("{'operationalStatus':'OK'}") ?? '', /^error decoding status annotation: invalid JSON/);
  t.is(reason('{"operationalStatus":"OK","extra":true}'), 'error decoding status annotation: unknown field "extra"');
  t.is(reason('{"errorCount":"three"}'), 'error decoding status annotation: errorCount: Invalid input: expected number, received string');
  t.is(reason('{"operationalStatus":"broken"}'), "invalid operationalStatus 'broken' in the baremetalhost.metal3.io/status annotation");
  t.is(reason('[1]'), 'error decoding status annotation: cannot unmarshal array into BareMetalHostStatus');
});

test('annotations - inspect: disabled or empty', (t) => {
  t.deepEqual(parseInspectAnnotation('disabled'), { ok: true, value: 'disabled' });
  t.deepEqual(parseInspectAnnotation(''), { ok: true, value: '' });
  const bad = parseInspectAnnotation('Disabled');
  t.false(bad.ok);
  if (!bad.ok) t.is(bad.error.reason, 'invalid value for the inspect.metal3.io annotation, allowed are "disabled" or ""');
});

test('annotations - hardwaredetails: JSON hardware details', (t) => {
  const r = parseHardwareDetailsAnnotation('{"cpu":{"arch":"x86_64","count":4},"ramMebibytes":8192,"hostname":"w0"}');
  t.true(r.ok);
  if (r.ok) t.like(r.value, { cpu: { arch: 'x86_64', count: 4 }, ramMebibytes: 8192 });
  t.deepEqual(parseHardwareDetailsAnnotation(''), { ok: true, value: null });
  const bad = parseHardwareDetailsAnnotation('{"cpu":');
  t.false(bad.ok);
  if (!bad.ok) t.regex(bad.error.reason, /^error decoding the inspect\.metal3\.io\/hardwaredetails annotation: invalid JSON/);
});

test('annotations - paused and inspection disabled', (t) => {
  t.true(isPaused({ 'baremetalhost.metal3.io/paused': '' }));
  t.false(isPaused({}));
  t.true(inspectionDisabled({ spec: { inspectionMode: 'disabled' } }));
  t.true(inspectionDisabled({ metadata: { annotations: { 'inspect.metal3.io': 'disabled' } }, spec: {} }));
  t.false(inspectionDisabled({ metadata: { annotations: { 'inspect.metal3.io': '' } }, spec: { inspectionMode: 'agent' } }));
});
