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

// The seed file given as --authorized-keys (or a seed pasted on a line of its own): the seed was
// read as the role and its first 40 characters printed in the error, into logs and terminals.
test('authorized keys - a seed anywhere on a line is named as a seed and never echoed, whichever field it is in', (t) => {
  const seed = new TextDecoder().decode(createUser().getSeed());
  for (const line of [seed, `${seed} operator`, `operator ${alice} ${seed}`, `${seed.slice(0, 40)}`]) {
    const error = t.throws(() => parseAuthorizedKeys(`# keys\n${line}\n`, 'keys.txt'), { instanceOf: KeyFileError }, line.slice(0, 8));
    t.regex(error?.message ?? '', /^keys\.txt: line 2: this looks like a seed \(a private key\)/);
    for (let i = 0; i + 12 <= 40; i += 4) t.false(error?.message.includes(seed.slice(i, i + 12)), `${line.slice(0, 8)}: ${error?.message}`);
  }
});

test('authorized keys - a role field that is not a word is not quoted (it may be a secret put in the wrong file)', (t) => {
  const error = t.throws(() => parseAuthorizedKeys('hunter2:Xy9!pass\n', 'keys.txt'), { instanceOf: KeyFileError });
  t.regex(error?.message ?? '', /^keys\.txt: line 1: the first field must be a role, one of operator, viewer; this file is the allow-list/);
  t.false(error?.message.includes('hunter2'));
  // A mistyped role is still quoted: it is a word, and the fix is to see it.
  t.regex(t.throws(() => parseAuthorizedKeys(`operater ${alice}\n`, 'keys.txt'))?.message ?? '', /role "operater" must be one of operator, viewer/);
});
