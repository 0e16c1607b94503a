// Requests a real BMC refuses, as python3-sushy (4.3, Ironic 21.4's) sees the refusal: an action
// parameter the action does not define (Base ActionParameterUnknown, as bmcweb answers), an action
// parameter or PATCH value of the wrong JSON type (ActionParameterValueTypeError,
// PropertyValueTypeError, not ...NotInList), a session login missing a field (PropertyMissing
// naming that field). test/sim/redfish/sushy_requests.py prints one JSON line per check.
// A missing sushy is a failure that names it, never a skip.
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { checksFrom } from '../support/python-checks.ts';
import { runSushyScript } from '../support/sushy-script.ts';

const SCRIPT = fileURLToPath(new URL('./redfish/sushy_requests.py', import.meta.url));

test('redfish sushy requests - unknown action parameters, wrong value types and incomplete logins are refused with the Base MessageIds a real BMC sends', async (t) => {
  const sim = await startRedfishSim({ systems: 1, updateMs: 1_000 });
  t.teardown(() => sim.stop());
  const me = sim.systems[0] as SimSystemInfo;
  const out = await runSushyScript(SCRIPT, [sim.url, me.systemPath, me.username], { SIM_PASSWORD: me.password });
  t.false(out.includes(me.password), 'no BMC password in what sushy saw');
  t.false(out.includes('image-secret'), 'no image password either');
  const get = checksFrom(out);
  const refused = (code: string, related: string[]) => ({ status: 400, code: `Base.1.8.${code}`, related });

  // Before: an unknown parameter was ignored (the reset ran) and ResetType 1 was "not in the list".
  const reset = get('reset_parameters');
  t.like(reset, {
    unknown: refused('ActionParameterUnknown', ['#/DelaySeconds']),
    wrong_type: refused('ActionParameterValueTypeError', ['#/ResetType']),
    missing: refused('ActionParameterMissing', ['#/ResetType']),
    manager_unknown: refused('ActionParameterUnknown', ['#/Force']),
    power_after_refusals: 'Off',
    power_after_reset: 'On',
  });

  const media = get('virtual_media_parameters');
  t.like(media, {
    unknown: refused('ActionParameterUnknown', ['#/Bogus']),
    after_unknown: [null, false],
    wrong_type: refused('ActionParameterValueTypeError', ['#/WriteProtected']),
    with_optional: ['http://images.example/b.iso', true],
    eject_unknown: refused('ActionParameterUnknown', ['#/Now']),
    after_eject_unknown: ['http://images.example/b.iso', true],
    ejected: [null, false],
  });

  t.like(get('update_parameters'), { unknown: refused('ActionParameterUnknown', ['#/Reboot']), tasks_added: 0 });

  // Before: a number or boolean where a string enum goes was PropertyValueNotInList.
  t.like(get('patch_value_types'), {
    boot_target: refused('PropertyValueTypeError', ['#/Boot/BootSourceOverrideTarget']),
    boot_enabled: refused('PropertyValueTypeError', ['#/Boot/BootSourceOverrideEnabled']),
    led: refused('PropertyValueTypeError', ['#/IndicatorLED']),
    chassis_led: refused('PropertyValueTypeError', ['#/IndicatorLED']),
    not_in_list: refused('PropertyValueNotInList', ['#/Boot/BootSourceOverrideTarget']),
    boot_after: ['None', 'Disabled'],
  });

  // Before: Attributes of the wrong type read as missing, a numeric NewPassword as missing, a
  // numeric RAIDType as not in the list.
  const bios = get('bios_and_volume_types');
  t.like(bios, {
    attributes_type: refused('PropertyValueTypeError', ['#/Attributes']),
    attributes_missing: refused('PropertyMissing', ['#/Attributes']),
    new_password_type: refused('ActionParameterValueTypeError', ['#/NewPassword']),
    new_password_missing: refused('ActionParameterMissing', ['#/NewPassword']),
    raid_type: refused('PropertyValueTypeError', ['#/RAIDType']),
    volumes: 0,
  });
  t.false(String((bios.new_password_type as { message: string }).message).includes('424242'), 'a refused BIOS password is not echoed');

  // Before: a login without Password was PropertyMissing naming UserName, and one with a numeric
  // Password was PropertyMissing too.
  const session = get('session_requests');
  t.like(session, {
    no_password: refused('PropertyMissing', ['#/Password']),
    no_user: refused('PropertyMissing', ['#/UserName']),
    password_type: refused('PropertyValueTypeError', ['#/Password']),
    login: me.id,
  });
  t.false(String((session.password_type as { message: string }).message).includes('12345'), 'a refused password is not echoed');
});
