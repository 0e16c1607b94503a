import test from 'ava';
import { parseHost } from '../../src/adapters/kube/parse-host.ts';
import { parseSecret } from '../../src/adapters/kube/parse-secret.ts';
import { parseRaw } from '../../src/adapters/kube/raw-object.ts';
import { secretValue } from '../../src/api/secret.ts';
import { bmh } from '../support/node.ts';

const raw = (o: unknown) => {
  const parsed = parseRaw(o);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.value;
};

test('parse - a host that does not parse is described by field, never by value', (t) => {
  const bad = bmh('h1') as { spec: Record<string, unknown> };
  bad.spec['online'] = 'yes-please-s3cr3t';
  const result = parseHost(raw(bad));
  t.false(result.ok);
  if (result.ok) return;
  t.deepEqual(result.problems, ['spec.online: Invalid input: expected boolean, received string']);
  t.false(result.problems.join().includes('s3cr3t'));
});

test('parse - a Secret keeps base64 data, which must decode, and drops everything but identity', (t) => {
  const ok = parseSecret(raw({ metadata: { name: 'bmc', namespace: 'lab', resourceVersion: '3', creationTimestamp: new Date(), managedFields: [] }, type: 'Opaque', data: { username: Buffer.from('admin').toString('base64'), password: Buffer.from(' pw \n').toString('base64') } }));
  t.true(ok.ok);
  if (!ok.ok) return;
  t.is(secretValue(ok.value, 'username'), 'admin');
  t.is(secretValue(ok.value, 'password'), 'pw');
  t.deepEqual(Object.keys(ok.value.metadata).sort(), ['name', 'namespace', 'resourceVersion']);
  const bad = parseSecret(raw({ metadata: { name: 'bmc', namespace: 'lab' }, data: { password: 'not base64 !!' } }));
  t.false(bad.ok);
  if (!bad.ok) t.false(bad.problems.join().includes('not base64 !!'));
});
