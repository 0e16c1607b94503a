// A BMC scheme a loaded plugin declares is admitted everywhere hosts are checked: by `metalfleet
// validate` and by the validating webhook, given the same plugins; without them it is BMO's
// unknown BMC type.
import test from 'ava';
import { metalfleet } from '../cli/run.ts';
import { admissionReview, fileTls, review, serve } from '../webhook/support.ts';

const tls = fileTls();

const HOSTS = 'test/fixtures/plugins/lab-hosts.yaml';
const labHost = {
  apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'lab-1', namespace: 'lab' },
  spec: { online: true, bmc: { address: 'lab://pdu-7/1', credentialsName: 'bmc' }, bootMACAddress: '52:54:00:aa:00:01' },
};

test('plugin admission - metalfleet validate admits lab:// only with the plugin that declares it', async (t) => {
  const without = await metalfleet('validate', HOSTS);
  t.is(without.code, 1);
  t.regex(without.stdout, /lab-hosts\.yaml:\d+:\d+: BareMetalHost lab\/lab-1: spec\.bmc\.address: Unknown BMC type 'lab'/);
  const withPlugin = await metalfleet('validate', HOSTS, '--plugin', './examples/provisioner-plugin');
  t.is(withPlugin.code, 0, withPlugin.stdout + withPlugin.stderr);
  // Its Secret is checked too (validate skipped Secrets).
  t.regex(withPlugin.stderr, /5 objects checked, 0 invalid/);
});

test('plugin admission - the webhook admits the schemes it was given and still denies unknown ones', async (t) => {
  const plain = await serve(t, tls.files);
  const denied = await review(plain.server.url, tls.pki.ca, admissionReview('CREATE', labHost));
  t.false(denied.response.allowed);
  t.regex(denied.response.status?.message ?? '', /Unknown BMC type 'lab'/);
  const withLab = await serve(t, tls.files, { pluginBmcSchemes: ['lab'] });
  t.true((await review(withLab.server.url, tls.pki.ca, admissionReview('CREATE', labHost))).response.allowed);
  const other = { ...labHost, spec: { ...labHost.spec, bmc: { address: 'pdu://x/1', credentialsName: 'bmc' } } };
  t.false((await review(withLab.server.url, tls.pki.ca, admissionReview('CREATE', other))).response.allowed);
});
