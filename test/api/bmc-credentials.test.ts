// Credentials written into a BMC address are refused, pointing to the Secret, and the password
// never appears in the error (issue 19.3: such an address was stored as written in mf-hosts).
import test from 'ava';
import { validateBareMetalHost } from '../../src/api/index.ts';
import { validateDocuments } from '../../src/adapters/store/validate.ts';
import { bmh } from '../support/node.ts';

const WITH_CREDENTIALS = 'redfish://admin:s3cret-pw@192.0.2.10/redfish/v1/Systems/1';

test('bmc credentials - an address with userinfo is refused with a pointer to the Secret, redacted', (t) => {
  const errors = validateBareMetalHost(bmh('h1', { address: WITH_CREDENTIALS }));
  const e = errors.find((x) => x.path === 'spec.bmc.address');
  t.truthy(e, JSON.stringify(errors));
  t.regex(e?.reason ?? '', /credentials in the BMC address \(redfish:\/\/xxxxx@192\.0\.2\.10\/redfish\/v1\/Systems\/1\) are not accepted.*Secret named by spec\.bmc\.credentialsName/);
  t.false(JSON.stringify(errors).includes('s3cret-pw'));
});

test('bmc credentials - apply refuses the host, so nothing with the password reaches the store', (t) => {
  const { valid, issues } = validateDocuments([{ file: 'h.yaml', index: 0, object: bmh('h1', { address: WITH_CREDENTIALS }) }]);
  t.deepEqual(valid, []);
  t.is(issues.length, 1);
  t.false(JSON.stringify(issues).includes('s3cret-pw'));
});

test('bmc credentials - the same address without userinfo is fine', (t) => {
  t.deepEqual(validateBareMetalHost(bmh('h1', { address: 'redfish://192.0.2.10/redfish/v1/Systems/1' })), []);
});
