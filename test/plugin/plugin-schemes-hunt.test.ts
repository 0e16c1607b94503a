// BMC schemes a plugin declares, hunted: a scheme that can never match an address (BMC addresses'
// schemes are read in lower case, without "://") is refused when the plugin loads, naming it,
// instead of every one of its hosts being refused as an unknown BMC type.
import test from 'ava';
import { PluginError, ProvisionerRegistry, checkPlugin } from '../../src/plugin/index.ts';
import { parseBmcAddress } from '../../src/api/bmc/parse.ts';

const lab = (bmcSchemes: string[]) => ({ name: 'lab', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: ['register'], bmcSchemes }, create: () => ({}) });

for (const scheme of ['lab://', 'Lab', 'lab:', '']) {
  test(`plugin hunt - a declared BMC scheme ${JSON.stringify(scheme)} is refused at load, naming the field`, (t) => {
    const err = t.throws(() => checkPlugin(lab([scheme]), 'lab.mjs'), { instanceOf: PluginError });
    t.regex(err?.message ?? '', /^provisioner plugin lab\.mjs: supports\.bmcSchemes\.0: must be a BMC address scheme/);
  });
}

test('plugin hunt - schemes as addresses carry them are accepted and admitted', (t) => {
  const registry = new ProvisionerRegistry();
  registry.register(lab(['lab', 'pdu+https', 'x-lab.v2']), 'lab.mjs');
  t.deepEqual(registry.bmcSchemes(), ['lab', 'pdu+https', 'x-lab.v2']);
  for (const address of ['LAB://pdu/1', 'pdu+https://pdu/1', 'x-lab.v2://h']) {
    const parsed = parseBmcAddress(address);
    t.true(!parsed.ok && parsed.error.scheme !== undefined && registry.bmcSchemes().includes(parsed.error.scheme), address);
  }
});
