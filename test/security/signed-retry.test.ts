// A client retry after a timeout is signed anew: the node that took the lost attempt must not
// refuse the retry as a replay of it.
import test from 'ava';
import { createMemoryBus, decode, encode, ok } from '../../src/bus/index.ts';
import { z } from 'zod';
import { signedCall } from '../../src/cluster/commands/signed-call.ts';
import { kvNonceLedger, SignedRequest, signedGuard, parseAuthorizedKeys, SigningKey, type Admission } from '../../src/security/index.ts';
import { createUser } from '@nats-io/nkeys';

test('signed call - each attempt carries its own nonce, so a retry after a lost reply is taken, not refused as a replay', async (t) => {
  const bus = createMemoryBus();
  const server = bus.connect('node');
  const client = bus.connect('cli');
  const pair = createUser();
  const key = SigningKey.fromSeed(new TextDecoder().decode(pair.getSeed()), 'test');
  const guard = signedGuard({ keys: parseAuthorizedKeys(`operator ${key.publicKey} alice`, 'keys'), nonces: kvNonceLedger(await server.kv('nonces', { ttlMs: 300_000 })) });
  const nonces: string[] = [];
  const admissions: Admission[] = [];
  server.subscribe('mf.test', (msg) => {
    void (async () => {
      const envelope = decode(msg.subject, msg.data, SignedRequest);
      if (!envelope.ok) throw envelope.error;
      nonces.push(envelope.value.nonce);
      admissions.push(await guard.admit(msg.subject, envelope.value, 'operator'));
      // The first attempt is taken but its reply is lost: the client times out and retries.
      if (nonces.length > 1) msg.respond(encode(ok({ done: true })));
    })();
  });
  const reply = await signedCall(client, 'mf.test', { type: 'powerOff', host: 'a/b' }, z.object({ done: z.boolean() }), { timeoutMs: 100, deadlineMs: 5_000, signingKey: key });
  t.deepEqual(reply, { done: true });
  t.is(nonces.length, 2);
  t.not(nonces[0], nonces[1]);
  t.true(admissions.every((a) => a.ok), JSON.stringify(admissions.map((a) => (a.ok ? 'ok' : a.error.message))));
});
