// The plugin's own test, as its author would write it: the contract fields, then each call on a
// host, without metalfleet running.
import test from 'ava';
import plugin, { createLabProvisioner } from '../index.js';

const log = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {}, child() { return log; } };
const host = (address: string, key = 'lab/m1') => ({
  key, namespace: 'lab', name: key.split('/')[1] ?? 'm1', uid: key, provisionerId: '', labels: {}, credentials: null,
  spec: { online: true, bmc: { address, credentialsName: 'none' }, image: { url: 'http://images/os.qcow2' } },
}) as unknown as Parameters<ReturnType<typeof createLabProvisioner>['register']>[0];

test('lab plugin - declares the contract it implements', (t) => {
  t.is(plugin.name, 'lab');
  t.is(plugin.contractVersion, 1);
  t.is(plugin.resource, 'BareMetalHost');
  t.true(plugin.supports.operations.includes('provision'));
  t.deepEqual(plugin.supports.bmcSchemes, ['lab']);
  t.is(typeof plugin.create, 'function');
});

test('lab plugin - register, provision, power and delete one machine', async (t) => {
  const lab = createLabProvisioner({ options: { provisionMs: '1' }, log });
  const m1 = host('lab://pdu-7/12');
  t.deepEqual(await lab.provision(m1, { op: 'provision' } as never), { kind: 'needsRegistration' });
  t.deepEqual(await lab.register(m1, { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'done', provisionerId: 'lab-pdu-7-12' });
  t.deepEqual(lab.capacity(m1), { pool: 'lab:pdu-7', exempt: false });
  t.deepEqual(await lab.provision(m1, { op: 'provision' } as never), { kind: 'done', poweredOn: true });
  t.deepEqual(lab.outlets.get('lab/m1'), { on: true, image: 'http://images/os.qcow2' });
  await lab.powerOff(m1, { op: 'powerOff' } as never);
  t.deepEqual(await lab.hardwareState(m1, { op: 'hardwareState' } as never), { kind: 'done', poweredOn: false });
  await lab.delete(m1, { op: 'delete' } as never);
  t.false(lab.outlets.has('lab/m1'));
});

test('lab plugin - a wrong address or outlet fails registration with the reason; bad options fail create', async (t) => {
  const lab = createLabProvisioner({ options: {}, log });
  t.like(await lab.register(host('ipmi://10.0.0.1'), { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'failed', message: 'BMC address "ipmi://10.0.0.1" is not lab://<pdu>/<outlet>' });
  t.like(await lab.register(host('lab://pdu-1/99'), { op: 'register', restartOnFailure: false, credentialsChanged: false }), { kind: 'failed', message: 'outlet 99 does not exist: the PDU has outlets 1 to 48' });
  t.throws(() => createLabProvisioner({ options: { provisionMs: 'soon' }, log }), { message: 'option provisionMs: must be a whole number of milliseconds, got "soon"' });
});
