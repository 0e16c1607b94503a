// A plugin written for another contract version has, as likely as not, another shape too: it is
// refused for its version (what the user must change), not for the first field this one lacks.
import test from 'ava';
import { PluginError, checkPlugin } from '../../src/plugin/index.ts';

test('plugin contract - a plugin of another contract version is refused for its version whatever its shape', (t) => {
  const future = { name: 'lab', contractVersion: 2, resource: 'BareMetalHostV2', supports: { ops: ['register'] }, create: () => ({}) };
  const err = t.throws(() => checkPlugin(future, 'lab.mjs'), { instanceOf: PluginError });
  t.is(err?.message, 'provisioner plugin lab.mjs: implements contract version 2; this metalfleet implements version 1 (use a plugin release built for it)');
});

test('plugin contract - a plugin of this version with a bad field is still refused naming the field', (t) => {
  const bad = { name: 'lab', contractVersion: 1, resource: 'BareMetalHost', supports: { operations: 'register' }, create: () => ({}) };
  t.throws(() => checkPlugin(bad, 'lab.mjs'), { instanceOf: PluginError, message: /^provisioner plugin lab\.mjs: supports\.operations: / });
});
