import net from 'node:net';

// A TCP relay that can go silent without closing, as a network partition looks to the client:
// requests hang until their timeout instead of failing fast.
export async function relay(port: number): Promise<{ url: string; blackhole(): void; close(): void }> {
  const sockets = new Set<net.Socket>();
  let dead = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    if (dead) return;
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    url: `nats://127.0.0.1:${own}`,
    blackhole() {
      dead = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

