// A plugin option holding a URL with a password (lab.url=http://admin:PW@pdu) is a credential
// however the option is named: a factory that fails quoting it must not print the password.
import test from 'ava';
import { PluginError, ProvisionerRegistry } from '../../src/plugin/index.ts';
import { silentLogger } from '../../src/ports/index.ts';

test('plugin options - the password of a URL option is kept out of a failed factory\'s message', async (t) => {
  const registry = new ProvisionerRegistry();
  registry.register({
    name: 'pdu', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'] },
    create: (ctx: { options: Readonly<Record<string, string>> }) => { throw new Error(`cannot reach the PDU at ${ctx.options['url'] ?? ''}`); },
  }, 'pdu.mjs');
  const err = await t.throwsAsync(registry.createProvisioner('pdu', { options: { url: 'http://admin:hunter2-pdu@pdu.lab:8080/api' }, log: silentLogger }), { instanceOf: PluginError });
  t.notRegex(err?.message ?? '', /hunter2-pdu/);
  t.regex(err?.message ?? '', /^provisioner plugin pdu \(pdu\.mjs\): create\(\) failed: cannot reach the PDU at http:\/\/admin:/);
  t.is(err?.cause, undefined, 'the cause, which holds the password, is not kept');
});
