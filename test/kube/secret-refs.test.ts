import test from 'ava';
import { BareMetalHost } from '../../src/api/index.ts';
import { hostsNamingSecret, secretsNamedBy } from '../../src/adapters/kube/secret-refs.ts';
import { bmh } from '../support/node.ts';

const parse = (o: unknown) => BareMetalHost.parse(o);

test('secret refs - credentials and user data, in the host namespace unless the reference says', (t) => {
  const h = parse(bmh('h1', { credentialsName: 'bmc-h1' }));
  const withData = { ...h, spec: { ...h.spec, userData: { name: 'ud' }, networkData: { name: 'nd', namespace: 'other' } } };
  t.deepEqual(secretsNamedBy(withData), ['lab/bmc-h1', 'lab/ud', 'other/nd']);
});

test('secret refs - only the hosts that name the Secret', (t) => {
  const hosts = [parse(bmh('a', { credentialsName: 's1' })), parse(bmh('b', { credentialsName: 's2' })), parse(bmh('c', { credentialsName: 's1', namespace: 'other' }))];
  t.deepEqual(hostsNamingSecret(hosts, 'lab/s1').map((h) => h.metadata.name), ['a']);
});
