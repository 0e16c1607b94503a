// Ironic answers 406 for two different reasons (checked on a real Ironic 21.4):
// - its version check (api/controllers/v1/__init__.py _check_version): the version asked is
//   outside the range it serves, "Version 1.96 was requested but the minor version is not supported
//   by this service. The supported version range is: [1.1, 1.82]." Negotiating again fixes it.
// - exception.NotAcceptable, "Request not acceptable.": a field, filter or verb newer than the
//   version of a request it otherwise accepts (api_utils check_allowed_fields,
//   reject_fields_in_newer_versions, the provision verbs). The same request at the same version is
//   refused again: no retry, no renegotiation.
import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';

let ironic: IronicServer;
test.before(async () => {
  ironic = await startIronic();
});
test.after.always(async () => {
  await ironic?.stop();
});

test('ironic client - a 406 for a field newer than the request is a lasting refusal naming the version, and the version is kept', async (t) => {
  const client = createIronicClient({ endpoint: ironic.url, maxVersion: '1.81' });
  t.teardown(() => client.close());
  await client.connect();
  const discoveries = (): number => client.stats.byRoute['GET /v1/'] ?? 0;
  const before = discoveries();
  // `shard` is 1.82's: Ironic 21.4 refuses it as a field of a 1.81 request.
  const err = await t.throwsAsync(client.listNodes({ fields: ['shard'] }), { instanceOf: IronicError });
  t.is(err?.status, 406);
  t.is(err?.code, 'unsupported');
  t.false(err?.retryable, 'the same request is refused again at this version');
  t.regex(err?.message ?? '', /Request not acceptable/);
  t.regex(err?.message ?? '', /1\.81/);
  t.is(client.version?.text, '1.81', 'the negotiated version stands');
  await client.listNodes({ fields: ['name'] });
  t.is(discoveries(), before, 'no renegotiation after it');
});

// The other 406 (a version outside the range) is retried after renegotiating:
// ironic-client-errors.test.ts, 'negotiates min(server, ours), ... renegotiates after a 406'.
