// The least a durable command can cost, with no metalfleet code in the way: a plain NATS
// responder that, for each request, writes one KV key (the request's subject token says which)
// and answers once the server has acked the write. `bench commands` runs one of these per node
// and times it beside the real command path, so the run shows how much of the gap to the bare
// echo is the platform's (a request plus an acked JetStream write) and how much is ours.
// Usage: node --import tsx bench/kv-floor-responder.ts NATS_URL SUBJECT_PREFIX BUCKET VALUE_BYTES REPLY_BYTES
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';

const [url, prefix, bucket, valueBytes, replyBytes] = process.argv.slice(2);
if (!url || !prefix || !bucket || !(Number(valueBytes) > 0) || !(Number(replyBytes) > 0)) {
  process.stderr.write('usage: kv-floor-responder NATS_URL SUBJECT_PREFIX BUCKET VALUE_BYTES REPLY_BYTES\n');
  process.exit(2);
}
const value = new Uint8Array(Number(valueBytes)).fill(0x62);
const reply = new Uint8Array(Number(replyBytes)).fill(0x61);
const nc = await connect({ servers: url, name: 'bench-kv-floor', noAsyncTraces: true });
const kv = await new Kvm(jetstream(nc)).create(bucket, { history: 1 });
nc.subscribe(`${prefix}.*`, {
  queue: 'kv-floor',
  callback: (err, msg) => {
    if (err) return;
    // The last subject token names the host's key; the value is as big as a stored host.
    const key = `h.${msg.subject.slice(prefix.length + 1)}`;
    kv.put(key, value).then(() => msg.respond(reply), () => msg.respond(new Uint8Array(0)));
  },
});
await nc.flush();
process.stdout.write('ready\n');
process.once('SIGTERM', () => void nc.drain().then(() => process.exit(0)));
