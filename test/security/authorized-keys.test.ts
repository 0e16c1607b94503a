// The allow-list file: roles and keys a line, comments, and a line we cannot read is an error
// that names the file and the line (the node does not start on it).
import test from 'ava';
import { createUser } from '@nats-io/nkeys';
import { KeyFileError, parseAuthorizedKeys } from '../../src/security/index.ts';

const alice = createUser().getPublicKey();
const victor = createUser().getPublicKey();

test('authorized keys - roles, names, comments and blank lines', (t) => {
  const keys = parseAuthorizedKeys(`# operators\noperator ${alice} alice   # on call\n\n   viewer ${victor}\n`, 'keys.txt');
  t.deepEqual([...keys.values()], [
    { role: 'operator', publicKey: alice, name: 'alice' },
    { role: 'viewer', publicKey: victor, name: `${victor.slice(0, 12)}...` },
  ]);
});

for (const [what, line, message] of [
  ['an unknown role', `admin ${alice}`, /^keys\.txt: line 3: role "admin" must be one of operator, viewer$/],
  ['a missing key', 'operator', /^keys\.txt: line 3: public key "" must be an nkey user public key/],
  ['an account key', `operator A${alice.slice(1)}`, /^keys\.txt: line 3: public key "A.*" must be an nkey user public key/],
  ['a seed', `operator SUAM${'A'.repeat(54)}`, /^keys\.txt: line 3: this looks like a seed \(a private key\), not a public key/],
  ['too many fields', `operator ${alice} alice smith`, /^keys\.txt: line 3: expected "<role> <public-key> \[name\]"/],
  ['a key listed twice', `viewer ${victor}`, /^keys\.txt: line 3: key .* is listed twice$/],
] as const) {
  test(`authorized keys - ${what} is an error naming the line`, (t) => {
    const error = t.throws(() => parseAuthorizedKeys(`# keys\nviewer ${victor} victor\n${line}\n`, 'keys.txt'), { instanceOf: KeyFileError });
    t.regex(error?.message ?? '', message);
    t.false(error?.retryable);
  });
}

test('authorized keys - a seed pasted into the file is not echoed in the error', (t) => {
  const seed = new TextDecoder().decode(createUser().getSeed());
  const error = t.throws(() => parseAuthorizedKeys(`operator ${seed} oops\n`, 'keys.txt'));
  t.false(error?.message.includes(seed.slice(2, 20)));
});
