// An nkey file that holds the wrong key: the public key (U..., what the server's config lists)
// instead of the seed, or an account's seed (SA...) instead of a user's. Both said only "is not a
// valid nkey seed" or failed as an authorization error; each now says what the file holds and
// what to give instead, without a key in the message, before anything dials.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { nkeys } from '@nats-io/nats-core';
import { BusConnectError, connectNats } from '../../src/bus/nats-transport.ts';
import { metalfleet } from '../cli/run.ts';

const decode = (b: Uint8Array): string => new TextDecoder().decode(b);

test('nats nkey seed file - a public key in it is named as one, and the seed asked for', async (t) => {
  const user = nkeys.createUser();
  const pub = user.getPublicKey();
  const error = await t.throwsAsync(connectNats({ servers: 'nats://127.0.0.1:1', name: 'pub', auth: { nkeySeed: pub, from: '--nats-nkey-file pub.nk' } }), { instanceOf: BusConnectError });
  t.regex(error.message, /the nkey seed in --nats-nkey-file pub\.nk is a public key \(U\.\.\.\), not a seed: give the user's seed \(SU\.\.\.\)/);
  t.false(error.message.includes(pub));
  t.false(error.retryable);

  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-nkey-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'pub.nk');
  await writeFile(file, `${pub}\n`);
  const run = await metalfleet('hosts', '--nats', 'nats://127.0.0.1:1', '--nats-nkey-file', file);
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, /is a public key \(U\.\.\.\), not a seed/);
  t.false(run.stderr.includes(pub));
});

test('nats nkey seed file - an account seed is named as one, not a user seed', async (t) => {
  const seed = decode(nkeys.createAccount().getSeed());
  const error = await t.throwsAsync(connectNats({ servers: 'nats://127.0.0.1:1', name: 'acct', auth: { nkeySeed: seed, from: 'NATS_NKEY_SEED' } }), { instanceOf: BusConnectError });
  t.regex(error.message, /the nkey seed in NATS_NKEY_SEED is an account seed \(SA\.\.\.\), not a user seed: give the user's seed \(SU\.\.\.\)/);
  t.false(error.message.includes(seed));
});
