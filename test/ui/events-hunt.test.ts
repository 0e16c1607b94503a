// The event stream to a reader that stops reading (a stalled tab, a suspended laptop, a slow link):
// the server keeps at most the newest picture for it, never every picture since it stopped (the
// dashboard runs in the node itself on its health port, and a big fleet's picture is megabytes a
// second), and once it reads again it gets the newest picture.
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { commandGate, createUiHandler } from '../../src/ui/index.ts';
import { waitUntil } from '../support/wait.ts';
import { startUiFleet } from './fleet.ts';

test('events hunt - a reader that stops reading is not queued every picture; reading again it gets the newest', async (t) => {
  const f = await startUiFleet({ hosts: 6 });
  // A short interval: pictures come fast enough for the connection's buffers to fill in seconds.
  const handler = createUiHandler({ transport: f.node.substrate.transport, gate: commandGate({ enabled: false }), shardCount: 16, intervalMs: 20, bind: '127.0.0.1' });
  let stream: ServerResponse | null = null;
  const server: Server = createServer((req, res) => {
    if (req.url === '/api/events') stream = res;
    if (!handler.handle(req, res)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let client: IncomingMessage | null = null;
  let text = '';
  try {
    client = await new Promise<IncomingMessage>((resolve, reject) => get({ port, host: '127.0.0.1', path: '/api/events' }, resolve).on('error', reject));
    t.is(client.statusCode, 200);
    client.setEncoding('utf8');
    client.on('data', (c: string) => { text += c; });
    await waitUntil(() => text.includes('event: picture'), 20_000, 'the first picture');
    // The reader stops reading; the server's writes back up once the socket buffers are full.
    client.pause();
    const served = (): ServerResponse => {
      if (stream === null) throw new Error('no stream answered');
      return stream;
    };
    await waitUntil(() => served().writableNeedDrain, 60_000, 'the stream backed up');
    const backedUp = served().writableLength;
    let pictures = 0;
    let frame = 0;
    const unsubscribe = handler.sampler.subscribe((_p, json) => {
      pictures += 1;
      frame = Math.max(frame, json.length + 32);
    });
    try {
      await waitUntil(() => pictures >= 25, 30_000, '25 more pictures');
    } finally {
      unsubscribe();
    }
    const queued = served().writableLength - backedUp;
    t.log(`queued for the stalled reader over 25 pictures: ${queued} bytes (one picture: ${frame})`);
    t.true(queued <= 2 * frame, `${queued} bytes queued: more than the newest picture (${frame} bytes each)`);

    // Reading again: the pictures it gets end with one taken after it stopped reading.
    const newestAt = (await handler.sampler.current()).picture.at;
    text = '';
    client.resume();
    const lastAt = (): number => {
      const frames = [...text.matchAll(/event: picture\ndata: (\{.*\})\n\n/g)];
      const last = frames.at(-1)?.[1];
      return last === undefined ? 0 : (JSON.parse(last) as { at: number }).at;
    };
    await waitUntil(() => lastAt() >= newestAt, 30_000, 'a picture as new as the one taken when the reader came back');
    t.pass();
  } finally {
    client?.destroy();
    handler.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await f.stop();
  }
});
