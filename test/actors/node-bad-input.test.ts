import test from 'ava';
import type { Provisioner } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';
import { putHostRecord } from '../support/local-store.ts';
import { bmh, secret, startTestNode, statusOf } from '../support/node.ts';

test('bad input - a missing credentials Secret is a registration error that recovers when the Secret appears', async (t) => {
  const { node, store } = await startTestNode();
  const applied = await store.applyObjects([bmh('nocreds', { credentialsName: 'late-secret' })]);
  t.true(applied.ok);
  await waitFor(() => node.stats.hosts.get('lab/nocreds')?.errorType === 'registration error', 5_000, 'registration error');
  const st = await node.snapshot('lab/nocreds');
  t.is(st?.status.errorMessage, 'BMC credentials Secret lab/late-secret not found');
  t.is(st?.state, 'registering');
  t.true((await store.applyObjects([secret('late-secret')])).ok);
  // Woken by the Secret, well inside the registration error's 10 s retry.
  await waitFor(() => node.stats.hosts.get('lab/nocreds')?.state === 'provisioned', 5_000, 'recovered');
  t.is(node.stats.hosts.get('lab/nocreds')?.errorType, '');
  await node.stop();
});

// Known gaps of the LocalStore that the memory store had: apply warned about a Secret a host names
// that is not in the store yet, and a new or changed Secret re-delivered the hosts naming it, which
// the machine takes as the fix a registration error waits for (src/machines/bmh/step.ts). Without
// it the host waits out its retry. Remove `.failing` when local-store.ts does both again.
test('bad input - apply warns about a missing credentials Secret, and the Secret applied later wakes the host at once', async (t) => {
  const { node, store } = await startTestNode();
  try {
    const applied = await store.applyObjects([bmh('nocreds', { credentialsName: 'late-secret' })]);
    t.true(applied.ok);
    t.true(applied.warnings.some((w) => w.includes('late-secret')), applied.warnings.join('; '));
    await waitFor(() => node.stats.hosts.get('lab/nocreds')?.errorType === 'registration error', 5_000, 'registration error');
    t.true((await store.applyObjects([secret('late-secret')])).ok);
    // Well inside the registration error's retry: only the wake gets it there this soon.
    await waitFor(() => node.stats.hosts.get('lab/nocreds')?.state === 'provisioned', 5_000, 'recovered');
  } finally {
    await node.stop();
  }
});

test('bad input - an empty password is a registration error naming the Secret and key, never the value', async (t) => {
  const { node, store } = await startTestNode();
  t.true((await store.applyObjects([secret('empty', 'lab', { username: 'admin', password: '   ' }), bmh('emptycreds', { credentialsName: 'empty' }), secret(), bmh('fine')])).ok);
  await waitFor(() => node.stats.hosts.get('lab/emptycreds')?.errorType === 'registration error' && node.stats.hosts.get('lab/fine')?.state === 'provisioned', 5_000, 'error and neighbour done');
  const st = await statusOf(store, 'lab/emptycreds');
  await node.stop();
  t.is(st?.errorMessage, 'BMC credentials Secret lab/empty: key "password" is missing or empty');
  t.is(st?.operationalStatus, 'error');
  t.false(JSON.stringify(st).includes('admin'));
});

test('bad input - an invalid manifest is refused with its path and nothing stored is lost', async (t) => {
  const { node, store } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('keep')])).ok);
  await waitFor(() => node.stats.hosts.get('lab/keep')?.state === 'provisioned', 5_000, 'provisioned');
  const bad = await store.applyObjects([bmh('keep', { address: 'foo://10.0.0.1' }), bmh('other', { annotations: { 'reboot.metal3.io': '{broken' } })]);
  t.false(bad.ok);
  const paths = bad.issues.map((i) => `${i.key}: ${i.path}`);
  t.true(paths.includes('lab/keep: spec.bmc.address'), paths.join('; '));
  t.true(paths.includes('lab/other: metadata.annotations[reboot.metal3.io]'), paths.join('; '));
  t.regex(bad.issues.find((i) => i.path === 'spec.bmc.address')?.message ?? '', /foo/);
  t.is((await store.get('lab/keep'))?.spec.bmc?.address.startsWith('redfish://'), true);
  t.is(await store.get('lab/other'), undefined);
  t.is(node.stats.hosts.get('lab/keep')?.state, 'provisioned');
  await node.stop();
});

test('bad input - malformed reboot JSON set past validation reboots soft and reports it', async (t) => {
  const { node, store, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('rb')])).ok);
  await waitFor(() => node.stats.hosts.get('lab/rb')?.state === 'provisioned', 5_000, 'provisioned');
  // applyIntent writes annotations as a command does, past the admission rules of apply.
  await store.applyIntent('lab/rb', { annotations: { 'reboot.metal3.io': '{not json' } });
  await waitFor(() => fixture.calls('lab/rb').powerOn === 1, 5_000, 'rebooted');
  const snap = await node.snapshot('lab/rb');
  await node.stop();
  t.is(fixture.calls('lab/rb').powerOff, 1);
  t.true(snap?.recent.some((e) => e.reason === 'InvalidAnnotationValue') ?? false);
  t.is((await store.get('lab/rb'))?.metadata.annotations?.['reboot.metal3.io'], undefined);
});

test('supervision - a host whose actor keeps crashing ends in error with a reason; others carry on', async (t) => {
  const wrap = (fixture: Provisioner): Provisioner => Object.assign(Object.create(fixture) as Provisioner, {
    capacity: (host: Parameters<Provisioner['capacity']>[0]) => {
      if (host.name === 'crashy') throw new Error('capacity table corrupt for crashy');
      return fixture.capacity(host);
    },
  });
  const { node, store } = await startTestNode({ provisioner: wrap, maxRestarts: 2 });
  t.true((await store.applyObjects([secret(), bmh('crashy'), bmh('steady')])).ok);
  await waitFor(() => node.stats.hosts.get('lab/steady')?.state === 'provisioned', 5_000, 'neighbour provisioned');
  let st: Awaited<ReturnType<typeof statusOf>>;
  await waitFor(() => {
    void statusOf(store, 'lab/crashy').then((s) => { st = s; });
    return st?.operationalStatus === 'error';
  }, 5_000, 'crash recorded');
  await node.stop();
  t.regex(st?.errorMessage ?? '', /^host actor crashed \d+ times, last: capacity table corrupt for crashy/);
  t.is(node.system.registry.list().filter((a) => a.path.includes('crashy')).length, 0);
});

test('bad input - without the admission rules an unknown BMC scheme reaches the host and is a registration error', async (t) => {
  const { node, store, substrate, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('ok')])).ok);
  // Written into the hosts bucket directly: no admission rule saw it (a cluster without the webhook).
  await putHostRecord(substrate.transport, bmh('warp', { address: 'warp://10.0.0.9' }));
  await waitFor(() => node.stats.hosts.get('lab/warp')?.errorType === 'registration error' && node.stats.hosts.get('lab/ok')?.state === 'provisioned', 5_000, 'error recorded');
  const st = await statusOf(store, 'lab/warp');
  await node.stop();
  t.regex(st?.errorMessage ?? '', /^spec\.bmc\.address: .*warp/);
  t.is(st?.provisioning.state, 'registering');
  t.is(fixture.calls('lab/warp').register, 0);
});
