// `metalfleet inspect`, the web page and every introspection reply show spec.bmc.address through
// stripUserinfo. A host whose address was refused still runs (its status says why) and is
// inspected, so a password that ends Go's authority early ("admin:pw/rest@host") must not show.
import test from 'ava';
import { stripUserinfo } from '../../src/node/index.ts';

const SECRET = 'Qx7-inspect-secret';

test('inspect - a BMC address loses its userinfo, a password holding "/", "?" or "#" included', (t) => {
  t.is(stripUserinfo(`redfish://admin:${SECRET}@10.0.0.9/redfish/v1/Systems/1`), 'redfish://10.0.0.9/redfish/v1/Systems/1');
  t.is(stripUserinfo(`admin:${SECRET}@10.0.0.9:623`), '10.0.0.9:623');
  for (const sep of ['/', '?', '#']) {
    for (const address of [`redfish://admin:pw${sep}${SECRET}@10.0.0.9/redfish/v1/Systems/1`, `ipmi://admin:pw${sep}${SECRET}@10.0.0.9`]) {
      const shown = stripUserinfo(address);
      t.false(shown.includes(SECRET) || shown.includes(':pw'), shown);
      t.true(shown.includes('10.0.0.9'), `${shown} still names the BMC`);
    }
  }
  // An "@" in the path of an address that parses is no userinfo: the address shows whole.
  t.is(stripUserinfo('redfish://10.0.0.9/redfish/v1/Systems/a@b'), 'redfish://10.0.0.9/redfish/v1/Systems/a@b');
});
