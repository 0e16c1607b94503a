// A file refused for an invalid Secret reports the Secret's error only: its hosts are re-checked
// with the plugin-declared BMC schemes the store was opened with, so a valid host on a plugin's
// scheme (lab://, as the example plugin declares) is not called an unknown BMC type.
import test from 'ava';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';

function host(name: string, address: string): unknown {
  return {
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, namespace: 'lab' },
    spec: {
      online: true, bmc: { address, credentialsName: 'bmc' }, bootMACAddress: '52:54:00:00:00:07',
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' }, inspectionMode: 'disabled',
    },
  };
}

// A Secret whose data is not base64 strings: refused by the Secret's own check.
const badSecret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'lab' }, data: { username: 42 } };

test('local store - an invalid Secret beside a host on a plugin BMC scheme reports only the Secret', async (t) => {
  const store = await openLocalStore(createMemoryBus().connect('test'), { pluginBmcSchemes: ['lab'] });
  t.teardown(() => store.close());
  // The host alone is admitted: lab:// is the plugin's scheme.
  const alone = await store.applyObjects([host('rack-a', 'lab://pdu-3/7')], 'alone');
  t.true(alone.ok, JSON.stringify(alone.issues));
  const applied = await store.applyObjects([badSecret, host('rack-b', 'lab://pdu-3/8')], 'both');
  t.false(applied.ok);
  t.true(applied.issues.length > 0);
  t.true(applied.issues.every((i) => i.index === 0), JSON.stringify(applied.issues.map((i) => ({ index: i.index, message: i.message }))));
  t.false(applied.issues.some((i) => /Unknown BMC type/.test(i.message)));
  t.is(await store.get('lab/rack-b'), undefined, 'nothing stored from a refused file');
});

test('local store - without the plugin scheme, an invalid Secret beside a lab:// host reports both', async (t) => {
  const store = await openLocalStore(createMemoryBus().connect('test'));
  t.teardown(() => store.close());
  const applied = await store.applyObjects([badSecret, host('rack-b', 'lab://pdu-3/8')], 'both');
  t.false(applied.ok);
  t.true(applied.issues.some((i) => i.index === 0));
  t.true(applied.issues.some((i) => i.index === 1 && /Unknown BMC type 'lab'/.test(i.message)));
});
