// /readyz on a clustered NATS: connected is not enough, JetStream must answer (a quorum of its
// servers). The watch asks every interval and says not ready only after repeated failures.
import test from 'ava';
import { createManualClock } from '../../src/actors/runtime/index.ts';
import { askJetStream } from '../../src/bus/index.ts';
import { JETSTREAM_FAILURES_NOT_READY, watchJetStream } from '../../src/node/readiness.ts';
import { BusError } from '../../src/ports/index.ts';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const UNAVAILABLE = 'NATS JetStream answered $JS.API.INFO with 503/10008: JetStream system temporarily unavailable (no quorum: a clustered JetStream needs a majority of its servers up and routed)';

function scripted(answers: Array<string | null>): { ask: () => Promise<string | null>; asked: () => number } {
  let n = 0;
  return {
    ask: () => Promise.resolve(answers[Math.min(n++, answers.length - 1)] ?? null),
    asked: () => n,
  };
}

test('readiness - JetStream answering keeps the node ready; one failed ask is no outage', async (t) => {
  const clock = createManualClock();
  const { ask } = scripted([null, UNAVAILABLE, null]);
  const watch = watchJetStream({ ask, everyMs: 1_000, clock });
  await settle();
  t.is(watch.reason(), null);
  clock.advance(1_000);
  await settle();
  t.is(watch.reason(), null, `one failure of ${JETSTREAM_FAILURES_NOT_READY} needed`);
  clock.advance(1_000);
  await settle();
  t.is(watch.reason(), null);
  watch.stop();
});

test('readiness - JetStream failing twice in a row makes the node not ready, naming NATS JetStream; an answer makes it ready again', async (t) => {
  const clock = createManualClock();
  const { ask, asked } = scripted([UNAVAILABLE, UNAVAILABLE, null]);
  const watch = watchJetStream({ ask, everyMs: 500, clock });
  await settle();
  clock.advance(500);
  await settle();
  t.is(watch.reason(), UNAVAILABLE);
  clock.advance(500);
  await settle();
  t.is(watch.reason(), null);
  watch.stop();
  const before = asked();
  clock.advance(5_000);
  await settle();
  t.is(asked(), before, 'a stopped watch asks no more');
});

test('readiness - askJetStream says what JetStream answered, or that it did not', async (t) => {
  const reply = (body: unknown) => ({ request: () => Promise.resolve(new TextEncoder().encode(JSON.stringify(body))) });
  t.is(await askJetStream(reply({ type: 'io.nats.jetstream.api.v1.account_info_response', memory: 0 }), 1_000), null);
  t.is(await askJetStream(reply({ error: { code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' } }), 1_000), UNAVAILABLE);
  const failing = (kind: 'timeout' | 'noResponders') => ({ request: () => Promise.reject(new BusError(kind, '$JS.API.INFO', 'x')) });
  t.is(await askJetStream(failing('timeout'), 2_000), 'NATS JetStream did not answer $JS.API.INFO within 2000 ms (the server is out of reach, or its cluster has no quorum)');
  t.is(await askJetStream(reply({ error: { code: 503, err_code: 10023, description: 'insufficient resources' } }), 1_000), 'NATS JetStream answered $JS.API.INFO with 503/10023: insufficient resources');
  t.regex((await askJetStream(failing('noResponders'), 2_000))!, /not enabled/);
  t.regex((await askJetStream({ request: () => Promise.resolve(new TextEncoder().encode('nonsense')) }, 1_000))!, /not an account info reply/);
});
